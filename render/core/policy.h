/* policy.h — what a document may point at: link targets and spreadsheet
 * formulas that reach outside the file. One rule for every writer.
 *
 * A spec often comes from untrusted analysis code, and a link or formula in
 * a delivered document is something a person will click or a spreadsheet will
 * evaluate. By default links may use http, https and mailto only
 * (javascript:, file:, smb:, UNC paths "\\host\share" and relative paths are
 * refused), and formulas may not call out of the workbook (DDE, WEBSERVICE,
 * external workbooks, CALL/REGISTER, ...). The command line widens either
 * (--allow-link-scheme, --allow-external-formulas); nothing in a spec or
 * theme can. The settings are per process, like fo_progress_set. */
#ifndef FO_POLICY_H
#define FO_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "folio.h"

/* Longest link target kept, in bytes: browsers and Office stop near 2,000
 * (Excel: 2,079), and libharu refuses strings over 65,535. */
#define FO_LINK_MAX 2048

/* fo_link_schemes_allow and fo_formulas_external_allow: include/folio.h. */
/* Back to http, https and mailto (tests). */
void fo_link_schemes_reset(void);

/* True when url may become a link: at most FO_LINK_MAX bytes, no control
 * characters or spaces, and an allowed scheme ("http://", "https://" with
 * the slashes; "mailto:"; "NAME:" for a scheme added by the caller). */
bool fo_link_allowed(const char *url);
/* Why fo_link_allowed refused url: a short phrase for a message. */
const char *fo_link_refusal(const char *url);

/* NULL when formula ("=..." as written) may go into a workbook, else what
 * it does wrong ("calls WEBSERVICE", "is a DDE link", "refers to another
 * workbook", "links to a refused target"). */
const char *fo_formula_refusal(const char *formula);

#endif
