/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* getenv-trace.so: an LD_PRELOAD library for the tests that records every getenv() and
 * secure_getenv() made through the PLT, as "FUNCTION NAME CALLER-OBJECT" lines appended to
 * $GETENV_TRACE_FILE, and then answers as libc would. The caller is found with dladdr() on the
 * return address, so the test can tell what the module, its plugin and libsystemd read. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef char *(*getenv_fn)(const char *);

static void trace(const char *fn, const char *name, void *caller) {
        static getenv_fn real;
        const char *file, *obj = "?";
        Dl_info info;
        char line[1024];
        int fd, n;

        if (!real)
                real = (getenv_fn) dlsym(RTLD_NEXT, "getenv");
        file = real ? real("GETENV_TRACE_FILE") : NULL;
        if (!file)
                return;
        if (dladdr(caller, &info) && info.dli_fname)
                obj = info.dli_fname;
        n = snprintf(line, sizeof line, "%s %s %s\n", fn, name, obj);
        fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0)
                return;
        if (n > 0)
                (void) !write(fd, line, (size_t) n < sizeof line ? (size_t) n : sizeof line - 1);
        close(fd);
}

char *getenv(const char *name) {
        getenv_fn real = (getenv_fn) dlsym(RTLD_NEXT, "getenv");
        trace("getenv", name, __builtin_return_address(0));
        return real ? real(name) : NULL;
}

char *secure_getenv(const char *name) {
        getenv_fn real = (getenv_fn) dlsym(RTLD_NEXT, "secure_getenv");
        trace("secure_getenv", name, __builtin_return_address(0));
        return real ? real(name) : NULL;
}
