#!/usr/bin/env python3
"""make check-json: every --json document of numatile against docs/json.schema.json, and every
command the README and the labs show, run.

  check_json.py [--tool BIN] [--schema FILE] [--only schema|docs]

schema part:
  - the schema itself is valid (Draft 2020-12) and rejects broken documents (negative checks);
  - every subcommand `numatile --help` lists runs with typical arguments and --json, and its
    output validates; a subcommand without typical arguments here, or without a
    "command:NAME" entry in the schema, fails the check;
  - every scenario `numatile bench --list --json` lists runs with --quick --json, and its
    output validates against its "scenario:NAME" entry (a scenario without one fails), its
    NAME.json against the envelope.
docs part:
  - every `numatile ...` line of the ```sh blocks of README.md, docs/guide.md and
    docs/labs/*.md runs and exits 0 (an instance file shown just before is saved for it); a block with a shell loop runs whole. The same line with --json appended must
    validate. Matrix sizes above NT_DOCS_MAX (default 1024) are lowered to it so the labs run
    in seconds on a small machine; NT_DOCS_MAX=0 runs them as written. Lines that are not
    numatile commands (make, sh docs/plot_map.sh) have their own tests and are not run here;
  - a `$ numatile ...` transcript (the command, then its output) runs, and every output line
    shown, in order, has the shape of a line the tool prints (numbers, plurals, the topology
    kind, '...' and a closing (remark) may differ: the transcript is of one machine); the few
    the text lays out otherwise are listed in SHAPE_AS_SHOWN_ONLY with the reason;
  - the relative links of README.md point to files that exist, it links docs/json.md,
    docs/benchmarks.md and docs/ARCHITECTURE.md, and it starts with `make demo`, `make test`.
Needs python3-jsonschema (Debian). Exit 0 when everything passes, 1 otherwise.
"""
import argparse
import copy
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    sys.exit("check-json: python3-jsonschema is missing (make deps installs it)")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Typical arguments of every subcommand: small sizes, each option family once. A new
# subcommand needs a line here (the check fails without) and a "command:NAME" schema entry.
TYPICAL = {
    "topo": [["topo"], ["topo", "--domains", "2", "--probe", "1"],
             ["topo", "--synthetic", "pack:2 numa:2 core:2 pu:1"],
             ["topo", "--domains", "2", "--map", "16x16@bc2d:2x1", "--m", "64", "--n", "64"]],
    "calibrate": [["calibrate", "--quick", "--nb", "32", "--domains", "2"]],
    "advise": [["advise", "--m", "256", "--n", "256", "--from", "64@random:1", "--kernel", "qr",
                "--domains", "2", "--profile", "{profile}"],
               ["advise", "--m", "256", "--n", "256", "--from", "64@chunk:2:1", "--kernel", "gemm",
                "--domains", "2", "--profile", "{profile}", "--run"]],
    "match": [["match", "--instance", "{inst}"], ["match", "--instance", "{inst}", "--objective",
                                                   "lex"],
              ["match", "--instance", "{inst}", "--ranks", "3"],
              ["match", "--m", "1000", "--n", "900", "--from", "10@bc2d:4x4", "--to",
               "7x3@bc2d:2x8:2x3", "--verify"]],
    "schedule": [["schedule", "--instance", "{inst}", "--verify"]],
    "plan": [["plan", "--m", "256", "--n", "256", "--from", "64@chunk:4:1", "--to",
              "64@bc2d:2x2", "--match", "volume", "--dump"]],
    "redist": [["redist", "--m", "256", "--n", "256", "--from", "64@bc2d:2x2", "--to",
                "64@bc1d:4", "--domains", "4", "--verify"],
               ["redist", "--m", "256", "--n", "256", "--from", "64@bc2d:2x2", "--to",
                "64@bc1d:4", "--domains", "4", "--inplace", "--verify"],
               ["redist", "--m", "256", "--n", "192", "--from", "64@bc2d:2x2", "--to",
                "48@bc1d:4", "--domains", "4", "--op", "C", "--type", "z", "--alpha", "2,1",
                "--beta", "0.5", "--uplo", "L", "--verify"]],
    "gemm": [["gemm", "--n", "128", "--nb", "32", "--dist", "bc2d:1x2", "--domains", "2",
              "--from", "bc2d:2x1", "--match", "volume", "--verify"],
             ["gemm", "--n", "128", "--nb", "32", "--speeds", "3,1", "--algo", "rrp",
              "--domains", "2", "--verify"]],
    "qr": [["qr", "--m", "128", "--n", "128", "--nb", "32", "--dist", "bc2d:1x2", "--domains",
            "2", "--verify"]],
    "stencil": [["stencil", "--items", "64", "--per-item", "16", "--iters", "3", "--domains", "2",
                 "--verify"]],
    "partition": [["partition", "--speeds", "4,2,1", "--n", "12", "--algo", "nrrp", "--dump"],
                  ["partition", "--speeds", "1,2,3,4", "--n", "16", "--algo", "sfcp"]],
    "bench": [["bench", "--list"]],
}

# Transcripts whose layout the text rearranges on purpose: run and validated, shape not compared.
SHAPE_AS_SHOWN_ONLY = {
    ("docs/guide.md", "numatile plan --m 1024 --n 1024 --from 128@chunk:4:1 --to 128@bc2d:2x2 "
     "--dump"): "the guide sets the source and target maps side by side (it says so)",
    ("docs/guide.md", "numatile advise --m 1024 --n 1024 --from 128@chunk:2:1 --kernel qr "
     "--profile prof.json --domains 2"): "the ranking shown is one machine's: the order of the "
                                          "candidates follows the profile measured",
}

INSTANCE = "# 3 domains, 6 items: d p\n3 6\n0 1\n0 1\n1 2\n1 2\n2 0\n2 1\n"


class Check:
    def __init__(self, tool, schema_path):
        self.tool = tool
        self.failures = 0
        with open(schema_path, encoding="utf-8") as f:
            self.schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(self.schema)
        self.validator = jsonschema.Draft202012Validator(self.schema)
        self.defs = self.schema.get("$defs", {})

    def fail(self, what, why):
        self.failures += 1
        print("FAIL %s: %s" % (what, why))

    def ok(self, what):
        print("ok   %s" % what)

    def errors(self, doc, schema=None):
        v = self.validator if schema is None else jsonschema.Draft202012Validator(
            dict(schema, **{"$defs": self.defs}))
        out = []
        try:
            for e in v.iter_errors(doc):
                while e.context:  # the innermost reason of a oneOf / if-then
                    e = e.context[0]
                path = "/".join(str(p) for p in e.absolute_path)
                out.append("%s: %s" % (path or "(top)", e.message[:300]))
        except jsonschema.exceptions.RefResolutionError as e:  # an entry the schema lacks
            out.append("the schema: %s" % e)
        return out

    def run(self, args, cwd=None, timeout=600):
        p = subprocess.run([self.tool] + args, cwd=cwd, capture_output=True, text=True,
                           timeout=timeout)
        return p.returncode, p.stdout, p.stderr

    def validate_output(self, what, args, cwd=None, schema=None):
        rc, out, err = self.run(args, cwd)
        if rc != 0:
            self.fail(what, "exit %d: %s" % (rc, err.strip()[-400:]))
            return None
        try:
            doc = json.loads(out)
        except ValueError as e:
            self.fail(what, "stdout is not one JSON document (%s)" % e)
            return None
        errs = self.errors(doc, schema)
        if errs:
            self.fail(what, "; ".join(errs[:5]))
            return None
        self.ok(what)
        return doc

    # ---- the schema part ----------------------------------------------------------------------

    def negative(self, good):
        """The schema must reject what breaks the vocabulary: a sample of broken copies of a
        valid topo document."""
        broken = []
        d = copy.deepcopy(good)
        del d["schema"]
        broken.append(("no schema field", d))
        d = copy.deepcopy(good)
        d["kind"] = d.pop("topology")
        broken.append(("topo's old 'kind'", d))
        d = copy.deepcopy(good)
        d["domains"] = d.pop("domain_list")
        broken.append(("domains as an array", d))
        d = copy.deepcopy(good)
        d["undocumented_field"] = 1
        broken.append(("an undocumented field", d))
        d = copy.deepcopy(good)
        d["machine"]["domains"] = "4"
        broken.append(("machine.domains a string", d))
        d = copy.deepcopy(good)
        d["command"] = "bench"
        d["scenario"] = "no-such-scenario"
        d["notices"] = []
        broken.append(("an unknown scenario", d))
        for name, doc in broken:
            if self.errors(doc):
                self.ok("negative: schema rejects %s" % name)
            else:
                self.fail("negative", "schema accepts %s" % name)

    def subcommands(self):
        rc, out, _ = self.run(["--help"])
        names = re.findall(r"^  ([a-z][a-z-]*)\s", out, re.M) if rc == 0 else []
        if not names:
            self.fail("subcommands", "`numatile --help` lists none")
        tmp = tempfile.mkdtemp(prefix="nt-check-json-")
        inst = os.path.join(tmp, "inst.txt")
        with open(inst, "w", encoding="utf-8") as f:
            f.write(INSTANCE)
        # advise reads a profile: one quick calibration, made once (its output is checked
        # with calibrate's typical arguments below).
        profile = os.path.join(tmp, "profile.json")
        rc, _, err = self.run(["calibrate", "--quick", "--nb", "32", "--domains", "2", "--out",
                               profile], cwd=tmp)
        if rc:
            self.fail("calibrate --out", "exit %d: %s" % (rc, err.strip()[-300:]))
        first_topo = None
        for name in names:
            if name != "bench" and "command:" + name not in self.defs:
                self.fail(name, "no \"command:%s\" entry in the schema" % name)
            if name not in TYPICAL:
                self.fail(name, "no typical arguments in scripts/check_json.py")
                continue
            for args in TYPICAL[name]:
                args = [a.replace("{inst}", inst).replace("{profile}", profile)
                        for a in args] + ["--json"]
                doc = self.validate_output(" ".join(args), args, cwd=tmp)
                if name == "topo" and doc is not None and first_topo is None:
                    first_topo = doc
        return first_topo

    def scenarios(self, out_dir):
        rc, out, err = self.run(["bench", "--list", "--json"])
        names = [s["name"] for s in json.loads(out)["scenarios"]] if rc == 0 else []
        if not names:
            self.fail("scenarios", "`numatile bench --list --json` lists none: %s" % err)
        env = {"$ref": "#/$defs/envelope"}
        for name in names:
            if "scenario:" + name not in self.defs:
                self.fail("bench " + name, "no \"scenario:%s\" entry in the schema" % name)
                continue
            d = os.path.join(out_dir, name)
            args = ["bench", name, "--quick", "--json", "--out", d]
            doc = self.validate_output(" ".join(args[:4]), args)
            rec = os.path.join(d, name + ".json")
            if doc is not None:
                with open(rec, encoding="utf-8") as f:
                    errs = self.errors(json.load(f), env)
                if errs:
                    self.fail(rec, "; ".join(errs[:5]))

    # ---- the docs part ------------------------------------------------------------------------

    def readme_links(self):
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            text = f.read()
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            if os.path.exists(os.path.join(ROOT, target)):
                self.ok("README link %s" % target)
            else:
                self.fail("README link", "%s does not exist" % target)
        for doc in ("docs/json.md", "docs/benchmarks.md", "docs/ARCHITECTURE.md"):
            if "(%s)" % doc not in text:
                self.fail("README", "does not link %s" % doc)
        lines = [l for l in text.splitlines() if l.startswith("make ")]
        if [l.split()[1] for l in lines[:2]] != ["demo", "test"]:
            self.fail("README", "does not start with `make demo` and `make test`")

    @staticmethod
    def blocks(path):
        """(language, text, the prose line before) of every fenced block of a markdown file."""
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        out, i, prose = [], 0, ""
        while i < len(lines):
            m = re.match(r"\s*```(\w*)\s*$", lines[i])
            if not m:
                if lines[i].strip():
                    prose = lines[i]
                i += 1
                continue
            body, i = [], i + 1
            while i < len(lines) and not re.match(r"\s*```\s*$", lines[i]):
                body.append(lines[i])
                i += 1
            out.append((m.group(1), "\n".join(body), prose))
            i += 1
        return out

    @staticmethod
    def shrink(cmd, cap):
        """Matrix sizes above cap lowered to it (NT_DOCS_MAX), tile sizes kept."""
        if not cap:
            return cmd
        return re.sub(r"(--(?:m|n)\s+)(\d+)",
                      lambda m: m.group(1) + str(min(int(m.group(2)), cap)), cmd)

    def doc_commands(self, cap):
        files = [os.path.join(ROOT, "README.md"), os.path.join(ROOT, "docs/guide.md")] + sorted(
            os.path.join(ROOT, "docs/labs", f) for f in os.listdir(os.path.join(ROOT, "docs/labs"))
            if f.endswith(".md"))
        tooldir = os.path.dirname(os.path.abspath(self.tool))
        env = dict(os.environ, PATH=tooldir + os.pathsep + os.environ.get("PATH", ""))
        for path in files:
            rel = os.path.relpath(path, ROOT)
            work = tempfile.mkdtemp(prefix="nt-check-docs-")
            self.data = None
            for lang, body, prose in self.blocks(path):
                text = re.sub(r"\\\n\s*", " ", body)  # continuation lines joined
                # A data file the text asks to save ("save this as `inst.txt`").
                m = re.search(r"save this as `([^`]+)`", prose)
                if lang == "" and m:
                    with open(os.path.join(work, m.group(1)), "w", encoding="utf-8") as f:
                        f.write("\n".join(l.strip() for l in body.splitlines()) + "\n")
                    continue
                # An instance file shown without a name: kept for the next --instance FILE.
                if lang == "" and all(re.match(r"\s*(#.*|\d+(\s+\d+)*)?\s*$", l)
                                      for l in body.splitlines()):
                    self.data = "\n".join(l.strip() for l in body.splitlines()) + "\n"
                    continue
                if lang != "sh" and not text.lstrip().startswith("$ numatile"):
                    continue
                if re.search(r"^\s*(for|while)\s", text, re.M) and lang == "sh":
                    script = self.shrink(text, cap)
                    p = subprocess.run(["bash", "-eo", "pipefail", "-c", script], cwd=work,
                                       env=env, capture_output=True, text=True, timeout=600)
                    what = "%s: block '%s...'" % (rel, text.strip().splitlines()[0][:50])
                    if p.returncode:
                        self.fail(what, "exit %d: %s" % (p.returncode, p.stderr.strip()[-300:]))
                    else:
                        self.ok(what)
                    continue
                if text.lstrip().startswith("$ numatile"):
                    # One transcript per "$ " line: the command, then what it printed.
                    for part in re.split(r"\n(?=\s*\$ )", text):
                        self.doc_transcript(rel, part, work)
                    continue
                for line in text.splitlines():
                    line = re.sub(r"\s+#.*$", "", line.strip())
                    if not line.startswith("numatile "):
                        continue
                    self.doc_command(rel, line, cap, work)

    @staticmethod
    def shape(line):
        """A documented output line as a pattern: numbers (or lists) where it has numbers, any
        amount of space, words singular or plural, any topology kind, an optional (remark) at
        the end: the transcript is of one machine, the shape holds on every one."""
        out = ""
        for m in re.finditer(r"\s*\(.*\)$|\.\.\.|\d+(?:\.\d+)?|\s+|physical|virtual|"
                             r"synthetic|[A-Za-z_]+|.", line):
            tok = m.group(0)
            if tok == "...":  # an elided part of the line
                out += ".*"
            elif len(tok.strip()) > 1 and tok.strip()[0] == "(":  # a closing remark: timings
                out += r"(?:\s*\(.*\))?"
            elif tok[0].isdigit():
                out += r"\d+(?:[.,-]\d+)*"  # 1.1, and cpu lists such as 0,1 or 0-15
            elif tok.isspace():
                out += r"\s+"
            elif tok in ("physical", "virtual", "synthetic"):
                out += "(?:physical|virtual|synthetic)"
            elif tok[0].isalpha():
                out += re.escape(tok[:-1] if tok.endswith("s") else tok) + "s?"
            else:
                out += re.escape(tok)
        return out

    def doc_transcript(self, rel, text, work):
        """A `$ numatile ...` block followed by its output: the command runs, and every output
        line shown (but '...') has the shape of a line it prints, in the same order."""
        # A command continued over several lines ("\\" at the end) is one command.
        # So is a quoted string that spans lines (a jq program).
        lines = re.sub(r"\\\n\s*", " ", text).splitlines()
        while len(lines) > 1:
            try:
                shlex.split(lines[0])
                break
            except ValueError:  # no closing quotation yet
                lines[0:2] = [lines[0] + "\n" + lines[1]]
        cmd = lines[0].strip()[2:]
        if re.search(r"[|>]", re.sub(r"'[^']*'|\"[^\"]*\"", "", cmd)):
            # A pipeline or redirection (plan --dump | jq > FILE): run by bash, its exit
            # status checked; what it printed went to the pipe, so no shape to compare.
            tooldir = os.path.dirname(os.path.abspath(self.tool))
            env = dict(os.environ, PATH=tooldir + os.pathsep + os.environ.get("PATH", ""))
            p = subprocess.run(["bash", "-eo", "pipefail", "-c", cmd], cwd=work, env=env,
                               capture_output=True, text=True, timeout=600)
            what = "%s: %s" % (rel, cmd[:60])
            if p.returncode:
                self.fail(what, "exit %d: %s" % (p.returncode, p.stderr.strip()[-300:]))
            else:
                self.ok(what)
            return
        self.doc_command(rel, cmd, 0, work)
        why = SHAPE_AS_SHOWN_ONLY.get((rel, cmd))
        if why:
            print("skip %s: %s: output shape not compared: %s" % (rel, cmd, why))
            return
        rc, out, _ = self.run(shlex.split(cmd)[1:], cwd=work)
        got, at = out.splitlines(), 0
        for want in lines[1:]:
            if want.strip() in ("", "..."):
                continue
            rx = re.compile(r"\s*" + self.shape(want.strip()) + r"\s*$")
            while at < len(got) and not rx.match(got[at]):
                at += 1
            if at == len(got):
                self.fail("%s: %s" % (rel, cmd), "no output line has the shape of '%s'" % want)
                return
            at += 1
        self.ok("%s: %s prints the documented shape" % (rel, cmd))

    def doc_command(self, rel, line, cap, work):
        args = shlex.split(self.shrink(line, cap))[1:]
        # Files of the tree the docs name from its top (tests/topologies/*.xml): the command
        # runs in a work directory, so they are given by their full path.
        args = [os.path.join(ROOT, a) if a.startswith("tests/") and
                os.path.exists(os.path.join(ROOT, a)) else a for a in args]
        if "--instance" in args and args.index("--instance") + 1 < len(args):
            inst = os.path.join(work, args[args.index("--instance") + 1])
            if not os.path.exists(inst) and self.data:
                with open(inst, "w", encoding="utf-8") as f:
                    f.write(self.data)
        if args and args[0] == "bench":  # the lab's --out stays inside the work directory
            args = [os.path.join(work, "bench-out") if a.startswith("/tmp/") else a
                    for a in args]
        what = "%s: %s" % (rel, " ".join(args))
        rc, _, err = self.run(args, cwd=work)
        if rc != 0:
            self.fail(what, "exit %d: %s" % (rc, err.strip()[-300:]))
            return
        if "--json" in args or "--help" in args:
            self.ok(what)
            return
        self.validate_output(what + " --json", args + ["--json"], cwd=work)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tool", default=os.path.join(ROOT, "build/bin/numatile"))
    ap.add_argument("--schema", default=os.path.join(ROOT, "docs/json.schema.json"))
    ap.add_argument("--only", choices=("schema", "docs"))
    a = ap.parse_args()
    c = Check(os.path.abspath(a.tool), a.schema)
    if a.only != "docs":
        topo = c.subcommands()
        if topo is None:
            c.fail("negative", "no valid topo document to break")
        else:
            c.negative(topo)
        with tempfile.TemporaryDirectory(prefix="nt-check-json-") as d:
            c.scenarios(d)
    if a.only != "schema":
        c.readme_links()
        c.doc_commands(int(os.environ.get("NT_DOCS_MAX", "1024")))
    print("check-json: %s" % ("%d failure(s)" % c.failures if c.failures else "all passed"))
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
