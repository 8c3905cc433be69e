/* header_alone.c — skss.h must compile by itself, with nothing before it. */
#include "skss.h"

int skss_header_alone_check(void);
int skss_header_alone_check(void) { return SKSS_OK; }
