/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Without libFuzzer: runs LLVMFuzzerTestOneInput once over every file named on the command line
 * or found in the directories named there (the seed corpus), so the corpus is a regression test in
 * every build, gcc and valgrind included. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path) {
        FILE *f = fopen(path, "re");
        uint8_t *buf = NULL;
        size_t cap = 0, len = 0, k;

        if (!f) {
                fprintf(stderr, "%s: %s\n", path, strerror(errno));
                return -1;
        }
        do {
                if (len == cap) {
                        cap = cap ? cap * 2 : 65536;
                        buf = realloc(buf, cap);
                        if (!buf)
                                abort();
                }
                k = fread(buf + len, 1, cap - len, f);
                len += k;
        } while (k > 0);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, len);
        free(buf);
        return 0;
}

static int run_path(const char *path, unsigned *n) {
        struct stat st;
        struct dirent **names;
        int k, r = 0;

        if (stat(path, &st) < 0) {
                fprintf(stderr, "%s: %s\n", path, strerror(errno));
                return -1;
        }
        if (!S_ISDIR(st.st_mode)) {
                (*n)++;
                return run_file(path);
        }
        k = scandir(path, &names, NULL, alphasort);
        if (k < 0)
                return -1;
        for (int i = 0; i < k; i++) {
                char sub[4096];
                if (names[i]->d_name[0] != '.' && r == 0) {
                        snprintf(sub, sizeof sub, "%s/%s", path, names[i]->d_name);
                        r = run_path(sub, n);
                }
                free(names[i]);
        }
        free(names);
        return r;
}

int main(int argc, char **argv) {
        unsigned n = 0;

        for (int i = 1; i < argc; i++)
                if (run_path(argv[i], &n) < 0)
                        return 1;
        if (n == 0) {
                fprintf(stderr, "no inputs\n");
                return 1;
        }
        printf("%u inputs replayed\n", n);
        return 0;
}
