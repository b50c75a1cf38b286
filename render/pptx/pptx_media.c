/* pptx_media.c — charts, images, metrics cards and code boxes on slides. */
#include "render/pptx/pptx_internal.h"

void fo_pptx_chart(fo_pptx *p, const fo_block *b) { (void)p; (void)b; }
void fo_pptx_image(fo_pptx *p, const fo_block *b) { (void)p; (void)b; }
void fo_pptx_metrics(fo_pptx *p, const fo_block *b) { (void)p; (void)b; }
void fo_pptx_code(fo_pptx *p, const fo_block *b) { (void)p; (void)b; }
