/* hugetext.c — the zygote's own code and read-only data on 2 MiB pages
 * (serve.h).
 *
 * Why: a render child is a fresh process, and on a virtual machine whose
 * MMU is paravirtualised (this project's CI kind) each distinct 4 KiB page a
 * fresh process touches costs a hypervisor page-table fill even when the
 * kernel's page tables already map it: 4.5-7.2 µs measured per page read,
 * ~0 per page of a 2 MiB page (bench/touch_floor.c). A small xlsx render
 * ran code on 219 pages, 62 of them folio's own (callgrind), and read
 * folio's rodata besides.
 *
 * How: folio-serve is linked with 2 MiB segment alignment, so each of its
 * read-only segments starts on a 2 MiB boundary with nothing mapped after it
 * up to the next one. In the zygote, before the warm-up, each such segment is
 * copied into anonymous memory asked for as transparent huge pages, given the
 * segment's own protection, and moved over the segment in one mremap: the
 * same bytes at the same addresses, so the code running now goes on
 * unaware. A fork copies the huge page's one entry, and a child reads all of
 * it for one fill. The segments stay read-only (code never writable), and
 * anything unexpected (a segment not aligned, the gap after it taken, no
 * huge page given) leaves that segment as it was.
 *
 * Cost: 2 MiB of memory per segment in the zygote, shared by every child;
 * perf and gdb see the remapped code as anonymous memory (no symbols).
 * Not done in AddressSanitizer builds (the copy reads across its redzones)
 * nor under valgrind (which refuses the mapping). */
#define FO_SERVE_PRIVATE
#include "serve/serve.h"

#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE ((uintptr_t)2 << 20)

#if !FO_SERVE_ASAN
/* [at, at + len) replaced by a copy on a 2 MiB page of the same protection;
   0, or -1 with the segment left as it was. */
static int remap(uintptr_t at, size_t len, int prot)
{
    uintptr_t used = (len + 4095) & ~(uintptr_t)4095, span = (len + HUGE - 1) & ~(HUGE - 1);
    char *raw, *copy;
    void *gap = NULL;

    if (at & (HUGE - 1) || !len) return -1;
    if (span > used) { /* the rest of the 2 MiB must be free: reserve it */
        gap = mmap((void *)(at + used), span - used, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (gap != (void *)(at + used)) {
            if (gap != MAP_FAILED) munmap(gap, span - used);
            return -1;
        }
    }
    raw = mmap(NULL, span + HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) goto fail;
    copy = (char *)(((uintptr_t)raw + HUGE - 1) & ~(HUGE - 1));
    if (copy > raw) munmap(raw, (size_t)(copy - raw));
    if (copy + span < raw + span + HUGE) munmap(copy + span, (size_t)(raw + span + HUGE - (copy + span)));
    if (madvise(copy, span, MADV_HUGEPAGE) < 0) {
        munmap(copy, span);
        goto fail;
    }
    memcpy(copy, (const void *)at, len);
    if (mprotect(copy, span, prot) < 0 ||
        mremap(copy, span, span, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)at) != (void *)at) {
        munmap(copy, span);
        goto fail;
    }
    return 0;
fail:
    if (gap) munmap(gap, span - used);
    return -1;
}

static int each_segment(struct dl_phdr_info *info, size_t size, void *count)
{
    (void)size;
    for (int k = 0; k < info->dlpi_phnum; k++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
        int prot = PROT_READ | (ph->p_flags & PF_X ? PROT_EXEC : 0);

        if (ph->p_type == PT_LOAD && !(ph->p_flags & PF_W) &&
            remap(info->dlpi_addr + ph->p_vaddr, ph->p_memsz, prot) == 0)
            ++*(unsigned *)count;
    }
    return 1; /* the first object is the program itself: the libraries are not ours */
}
#endif

unsigned fo_serve_huge_text(void)
{
    unsigned n = 0;

#if !FO_SERVE_ASAN
    (void)dl_iterate_phdr(each_segment, &n);
#endif
    return n;
}
