/* hpdf_mem.c — libharu's byte copy and byte fill, done by the C library.
 *
 * Why: libharu copies and clears memory through its own HPDF_MemCpy and
 * HPDF_MemSet (hpdf_utils.c), loops of one byte per iteration. It calls
 * them everywhere: every page operator clears a scratch buffer, every
 * write to a memory stream copies through HPDF_MemCpy, and setting up a
 * font for the UTF-8 encoder (HPDF_GetFont) clears a 256 KiB table and
 * copies a 128 KiB /CIDToGIDMap two bytes per call, once per embedded
 * font. In the mixed-script benchmark report (19 fonts) the two loops took
 * about 6% of the PDF's CPU time, 3% in the English one.
 *
 * libharu calls both through its procedure linkage table, so a definition
 * in the program comes first (ELF symbol interposition): these replace
 * libharu's own for every call it makes. They keep libharu's contract
 * exactly, return value included (the end of the bytes written); a copy
 * whose destination starts inside its source, which libharu's forward loop
 * would smear, is done the same way. fo_pdf_mem_interposed tells whether
 * libharu's calls reach these (tests/render/pdf/t_pdf_mem.c). */
#include <dlfcn.h>
#include <string.h>

#include <hpdf.h>
#include <hpdf_utils.h>

#include "render/pdf/pdf_int.h"

HPDF_BYTE *HPDF_MemCpy(HPDF_BYTE *out, const HPDF_BYTE *in, HPDF_UINT n)
{
    if (out > in && out < in + n) {         /* libharu's forward loop, as it is */
        for (HPDF_UINT i = 0; i < n; i++) out[i] = in[i];
        return out + n;
    }
    memmove(out, in, n);
    return out + n;
}

void *HPDF_MemSet(void *s, HPDF_BYTE c, HPDF_UINT n)
{
    memset(s, c, n);
    return (HPDF_BYTE *)s + n;
}

bool fo_pdf_mem_interposed(void)
{
    return dlsym(RTLD_DEFAULT, "HPDF_MemCpy") == (void *)HPDF_MemCpy &&
           dlsym(RTLD_DEFAULT, "HPDF_MemSet") == (void *)HPDF_MemSet;
}
