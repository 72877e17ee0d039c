/* completion.h: the shell completion script netmetricsctl writes from its command table. */
#ifndef NM_COMPLETION_H
#define NM_COMPLETION_H

#include <stdio.h>

/* Write the bash completion script for netmetricsctl to fp. */
void completion_bash(FILE *fp);
/* `netmetricsctl completion SHELL`: the words after "completion". 0, or 2 (usage) after
 * saying so on err. */
int completion_main(int argc, char **argv, FILE *out, FILE *err);

#endif
