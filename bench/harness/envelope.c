// The envelope every --json document of the tool starts with (docs/json.md): schema version,
// tool, command, machine, libraries, parameters; then the command's own fields.
#include "harness.h"

#include "numatile.h"

json_t *bench_envelope(const char *command, const nt_topo_t *t, json_t *params)
{
    return json_pack("{s:i, s:{s:s, s:s, s:s}, s:s, s:o, s:o, s:o}", "schema", BENCH_JSON_SCHEMA,
                     "tool", "name", "numatile", "version", nt_version(), "compiler",
                     bench_compiler(), "command", command, "machine", bench_machine(t),
                     "libraries", bench_libraries(), "parameters",
                     params ? params : json_object());
}

json_t *bench_wrap(const char *command, const nt_topo_t *t, json_t *params, json_t *fields)
{
    json_t *doc = bench_envelope(command, t, params);
    const char *key;
    json_t *v;
    // The envelope's keys are not the command's to set: on a clash the envelope wins, and the
    // schema check (make check-json) finds the command's field missing.
    json_object_foreach(fields, key, v) {
        if (!json_object_get(doc, key))
            json_object_set(doc, key, v);
    }
    json_decref(fields);
    return doc;
}
