#include "numatile/version.h"

const char *nt_version(void)
{
    return NT_VERSION_STRING;
}
