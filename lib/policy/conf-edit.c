/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf-edit.h"
#include "conf.h"
#include "fs-util.h"
#include "macro.h"
#include "read-file.h"

#define CONF_EDIT_HEADER "# Written by slicectl(1): change it with 'slicectl set' and 'slicectl unset'."

static void line_done(ConfEditLine *l) {
        free(l->verbatim);
        free(l->domain);
        domain_done(&l->parsed);
        for (Setting s = 0; s < _SETTING_MAX; s++)
                free(l->values[s]);
        free(l->penalty);
        conf_skips_done(&l->skipped);
        *l = (ConfEditLine) {};
}

/* A new value for s, or its removal, replaces every occurrence of s on the line, the skipped too:
 * else a repeat left behind would apply once the first goes. Returns how many were dropped. */
static int drop_skipped(ConfEditLine *l, Setting s) {
        size_t j = 0;
        int dropped = 0;

        for (size_t i = 0; i < l->skipped.n; i++) {
                ConfSkip *k = &l->skipped.items[i];

                if (k->setting == (int) s) {
                        free(k->reason);
                        free(k->token);
                        dropped++;
                        continue;
                }
                l->skipped.items[j++] = *k;
        }
        l->skipped.n = j;
        return dropped;
}

static int push_line(ConfEdit *ed, ConfEditLine *l) {
        ConfEditLine *lines = realloc(ed->lines, (ed->n + 1) * sizeof *lines);

        if (!lines)
                return -ENOMEM;
        ed->lines = lines;
        ed->lines[ed->n++] = *l;
        *l = (ConfEditLine) {};
        return 0;
}

static int append_word(char **text, const char *word) {
        char *joined;

        if (asprintf(&joined, "%s%s%s", *text ? *text : "", *text ? " " : "", word) < 0)
                return -ENOMEM;
        free(*text);
        *text = joined;
        return 0;
}

/* A parsed rule line back into domain text and per-setting value text (rule->text holds only the
 * settings used, each SETTING=VALUE). */
static int line_from_rule(ConfEditLine *l, Rule *rule) {
        char *save = NULL, *tok;

        tok = strtok_r(rule->text, " \t", &save);
        l->domain = strdup(tok);
        if (!l->domain)
                return -ENOMEM;
        while ((tok = strtok_r(NULL, " \t", &save))) {
                char *eq = strchr(tok, '=');
                int s = -EINVAL;

                if (eq) {
                        *eq = '\0';
                        s = setting_from_string(tok);
                        *eq = '=';
                }
                if (s < 0) { /* a penalty key, or one more PenaltyExempt= name: kept as written */
                        if (append_word(&l->penalty, tok) < 0)
                                return -ENOMEM;
                        continue;
                }
                l->values[s] = strdup(eq + 1);
                if (!l->values[s])
                        return -ENOMEM;
        }
        l->parsed = rule->domain;
        rule->domain = (Domain) {};
        return 0;
}

static int parse_text(ConfEdit *ed, const char *buf, size_t len) {
        for (size_t pos = 0; pos < len;) {
                const char *nl = memchr(buf + pos, '\n', len - pos);
                size_t end = nl ? (size_t) (nl - buf) : len;
                _cleanup_free_ char *text = strndup(buf + pos, end - pos);
                _cleanup_(conf_skips_done) ConfSkips skips = {};
                ConfEditLine l = {};
                Rule rule = {};
                int r;

                pos = end + 1;
                if (!text)
                        return -ENOMEM;
                r = conf_parse_line(text, &rule, &skips);
                if (r == -ENOMEM)
                        return r;
                if (r == 0) {
                        r = line_from_rule(&l, &rule);
                        rule_done(&rule);
                        l.skipped = skips;
                        skips = (ConfSkips) {};
                } else {
                        l.verbatim = TAKE_PTR(text);
                        r = 0;
                }
                if (r >= 0)
                        r = push_line(ed, &l);
                line_done(&l);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* What the module would refuse to read (conf_check_stat, its own rule), slicectl refuses to edit:
 * rewriting it would hide the problem and still leave every login without its settings. */
static int check_like_module(int fd, const char *path, CsError *e) {
        _cleanup_(diag_list_done) DiagList d = {};
        struct stat st;
        int r;

        if (fstat(fd, &st) < 0)
                return cs_error(e, -errno, "cannot stat %s: %m", path);
        r = conf_check_stat(path, &st, CONF_PERMS_ENFORCE, &d);
        if (r < 0)
                return cs_error(e, r, "%s: %s: pam_cpuslice does not read it, so it is not edited", path,
                                d.n > 0 ? d.items[0].msg : "refused");
        return 0;
}

static int read_existing(ConfEdit *ed, CsError *e) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        struct stat st;
        int r;

        fd = openat(ed->dir_fd, CONF_EDIT_FILE, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
        if (fd < 0 && errno == ENOENT)
                return 0;
        if (fd < 0)
                return cs_error(e, -errno, "cannot open %s: %m", ed->path);
        if (fstat(fd, &st) < 0)
                return cs_error(e, -errno, "cannot stat %s: %m", ed->path);
        if (!S_ISREG(st.st_mode))
                return cs_error(e, -EBADFD, "%s is not a regular file; not edited", ed->path);
        r = check_like_module(fd, ed->path, e);
        if (r < 0)
                return r;
        r = read_full_fd(fd, CONF_FILE_MAX, NULL, &buf, &len);
        if (r < 0)
                return cs_error(e, r, "cannot read %s: %m", ed->path);
        ed->exists = true;
        r = parse_text(ed, buf, len);
        return r < 0 ? cs_error(e, r, "cannot read %s: %m", ed->path) : 0;
}

int conf_edit_open(const char *dir, const ConfEditOps *ops, ConfEdit *ret, CsError *e) {
        _cleanup_(conf_edit_done) ConfEdit ed = { .dir_fd = -EBADF, .lock_fd = -EBADF, .ops = ops };
        int r;

        r = mkdir_mode(dir, 0755);
        if (r < 0)
                return cs_error(e, r, "cannot create %s: %m", dir);
        if (asprintf(&ed.path, "%s/%s", dir, CONF_EDIT_FILE) < 0) {
                ed.path = NULL;
                return -ENOMEM;
        }
        ed.dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (ed.dir_fd < 0)
                return cs_error(e, -errno, "cannot open %s: %m", dir);
        r = check_like_module(ed.dir_fd, dir, e);
        if (r < 0)
                return r;
        /* An editor that leaves no drop-in removes the lock file while holding it (conf_edit_done): a
         * waiter that got the lock on a removed file starts over with the current one. So lock_fd is
         * only set once the lock is held on the file that is there: done unlinks nothing else. */
        for (;;) {
                _cleanup_close_ int fd = -EBADF;
                struct stat a, b;

                fd = openat(ed.dir_fd, CONF_EDIT_LOCK, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
                if (fd < 0)
                        return cs_error(e, -errno, "cannot open lock file %s/%s: %m", dir, CONF_EDIT_LOCK);
                /* made by us, perhaps just now: its mode is ours, not the caller's umask's */
                if (fchmod(fd, 0600) < 0)
                        return cs_error(e, -errno, "chmod %s/%s: %m", dir, CONF_EDIT_LOCK);
                while (flock(fd, LOCK_EX) < 0)
                        if (errno != EINTR)
                                return cs_error(e, -errno, "cannot lock %s/%s: %m", dir, CONF_EDIT_LOCK);
                if (fstat(fd, &a) < 0)
                        return cs_error(e, -errno, "cannot stat %s/%s: %m", dir, CONF_EDIT_LOCK);
                if (fstatat(ed.dir_fd, CONF_EDIT_LOCK, &b, AT_SYMLINK_NOFOLLOW) == 0 && a.st_dev == b.st_dev &&
                    a.st_ino == b.st_ino) {
                        ed.lock_fd = TAKE_FD(fd);
                        break;
                }
        }
        r = read_existing(&ed, e);
        if (r < 0)
                return r;
        *ret = ed;
        ed = (ConfEdit) { .dir_fd = -EBADF, .lock_fd = -EBADF };
        return 0;
}

static int parse_domain(const char *domain, Domain *ret, char **ret_reason) {
        const char *why = NULL;
        int r = domain_parse(domain, ret, &why);

        if (r < 0 && r != -ENOMEM && asprintf(ret_reason, "%s: '%s'", why, domain) < 0)
                *ret_reason = NULL;
        return r;
}

static void drop_value(ConfEditLine *l, Setting s) {
        free(l->values[s]);
        l->values[s] = NULL;
        drop_skipped(l, s);
}

int conf_edit_set(ConfEdit *ed, const char *domain, char *const *assignments, size_t n, char **ret_reason) {
        _cleanup_(conf_skips_done) ConfSkips skips = {};
        _cleanup_free_ char *text = NULL;
        ConfEditLine l = {};
        Rule rule = {};
        size_t len;
        ssize_t last = -1;
        int r;

        *ret_reason = NULL;
        if (n == 0)
                return asprintf(ret_reason, "no settings given (allowed: %s)", settings_allowed()) < 0 ? -ENOMEM
                                                                                                       : -EINVAL;
        /* the line as the module would read it: exactly its validation, its messages */
        len = strlen(domain) + 1;
        for (size_t i = 0; i < n; i++) {
                if (strpbrk(assignments[i], " \t\n#"))
                        return asprintf(ret_reason, "'%s': no blanks or '#' in a setting", assignments[i]) < 0
                                       ? -ENOMEM
                                       : -EINVAL;
                len += strlen(assignments[i]) + 1;
        }
        if (strpbrk(domain, " \t\n#") || !*domain)
                return asprintf(ret_reason, "bad domain '%s'", domain) < 0 ? -ENOMEM : -EINVAL;
        text = malloc(len + 1);
        if (!text)
                return -ENOMEM;
        strcpy(text, domain);
        for (size_t i = 0; i < n; i++)
                strcat(strcat(text, " "), assignments[i]);
        /* the module would skip a bad setting alone; set writes none, so nothing is half done */
        r = conf_parse_line(text, &rule, &skips);
        if (r == 0 && skips.n > 0) {
                rule_done(&rule);
                r = -EINVAL;
        }
        if (r == -ENOMEM)
                return r;
        if (r != 0) {
                if (skips.n > 0)
                        *ret_reason = TAKE_PTR(skips.items[0].reason);
                return r < 0 ? r : -EINVAL;
        }
        /* a penalty is policy for a shared host, written where the admins read it, not a live
         * per-user knob: set leaves these keys to cpuslice.conf */
        if (rule.penalty.mask != 0) {
                rule_done(&rule);
                return asprintf(ret_reason, "the Penalty*= keys are not set with slicectl set: write them in "
                                            "/etc/security/cpuslice.conf (cpuslice.conf(5))") < 0
                               ? -ENOMEM
                               : -EINVAL;
        }

        for (size_t i = 0; i < ed->n; i++)
                if (ed->lines[i].domain && domain_equal(&ed->lines[i].parsed, &rule.domain))
                        last = (ssize_t) i;
        if (last < 0) {
                r = line_from_rule(&l, &rule);
                if (r >= 0)
                        r = push_line(ed, &l);
                line_done(&l);
                rule_done(&rule);
                return r;
        }
        r = line_from_rule(&l, &rule);
        rule_done(&rule);
        if (r < 0) {
                line_done(&l);
                return r;
        }
        /* merge into the domain's last line; earlier duplicates (hand edits) lose these settings,
         * and a quota in one spelling replaces the other (one line may not give both) */
        for (Setting s = 0; s < _SETTING_MAX; s++) {
                if (!l.values[s])
                        continue;
                for (Setting t = 0; t < _SETTING_MAX; t++)
                        if (setting_rivals(s) & (1u << t))
                                for (ssize_t i = 0; i <= last; i++)
                                        if (ed->lines[i].domain && domain_equal(&ed->lines[i].parsed, &l.parsed))
                                                drop_value(&ed->lines[i], t);
                ed->lines[last].values[s] = TAKE_PTR(l.values[s]);
        }
        line_done(&l);
        return 0;
}

static bool line_empty(const ConfEditLine *l) {
        if (l->penalty)
                return false;
        for (Setting s = 0; s < _SETTING_MAX; s++)
                if (l->values[s])
                        return false;
        return true;
}

int conf_edit_unset(ConfEdit *ed, const char *domain, unsigned mask, char **ret_reason) {
        Domain d = {};
        size_t j = 0;
        int r, removed = 0;

        *ret_reason = NULL;
        r = parse_domain(domain, &d, ret_reason);
        if (r < 0)
                return r;
        bool all = mask == 0;

        if (all)
                mask = (1u << _SETTING_MAX) - 1;
        for (size_t i = 0; i < ed->n; i++) {
                ConfEditLine *l = &ed->lines[i];

                if (l->domain && domain_equal(&l->parsed, &d)) {
                        if (all && l->penalty) {
                                free(l->penalty);
                                l->penalty = NULL;
                                removed++;
                        }
                        for (Setting s = 0; s < _SETTING_MAX; s++) {
                                if (!(mask & (1u << s)))
                                        continue;
                                removed += drop_skipped(l, s);
                                if (l->values[s]) {
                                        free(l->values[s]);
                                        l->values[s] = NULL;
                                        removed++;
                                }
                        }
                        if (line_empty(l)) {
                                line_done(l);
                                continue;
                        }
                }
                ed->lines[j++] = *l;
        }
        ed->n = j;
        domain_done(&d);
        return removed;
}

static int render(FILE *f, void *userdata) {
        const ConfEdit *ed = userdata;

        if (ed->n == 0 || !ed->lines[0].verbatim || strcmp(ed->lines[0].verbatim, CONF_EDIT_HEADER) != 0)
                fputs(CONF_EDIT_HEADER "\n", f);
        for (size_t i = 0; i < ed->n; i++) {
                const ConfEditLine *l = &ed->lines[i];

                if (l->verbatim) {
                        fprintf(f, "%s\n", l->verbatim);
                        continue;
                }
                if (line_empty(l))
                        continue; /* a hand-written duplicate whose settings moved to the last line */
                fputs(l->domain, f);
                for (Setting s = 0; s < _SETTING_MAX; s++)
                        if (l->values[s])
                                fprintf(f, " %s=%s", setting_to_string(s), l->values[s]);
                if (l->penalty)
                        fprintf(f, " %s", l->penalty);
                /* after the valid ones: a skipped repeat stays a repeat, and is skipped again */
                for (size_t k = 0; k < l->skipped.n; k++)
                        fprintf(f, " %s", l->skipped.items[k].token);
                fputc('\n', f);
        }
        return 0;
}

int conf_edit_render(const ConfEdit *ed, char **ret) {
        _cleanup_free_ char *buf = NULL;
        size_t size = 0;
        FILE *f;

        f = open_memstream(&buf, &size);
        if (!f)
                return -ENOMEM;
        (void) render(f, (void *) ed);
        if (fclose(f) != 0)
                return -ENOMEM;
        *ret = TAKE_PTR(buf);
        return 0;
}

/* Nothing but the header (or nothing) is left: the file goes, and conf_edit_done takes its lock file. */
static bool edit_empty(const ConfEdit *ed) {
        for (size_t i = 0; i < ed->n; i++) {
                const ConfEditLine *l = &ed->lines[i];

                if (l->verbatim ? strcmp(l->verbatim, CONF_EDIT_HEADER) != 0 : !line_empty(l))
                        return false;
        }
        return true;
}

static int remove_files(ConfEdit *ed, CsError *e) {
        if (unlinkat(ed->dir_fd, CONF_EDIT_FILE, 0) < 0 && errno != ENOENT)
                return cs_error(e, -errno, "cannot remove %s: %m", ed->path);
        if (fsync(ed->dir_fd) < 0)
                return cs_error(e, -errno, "fsync of the directory of %s: %m", ed->path);
        ed->exists = false;
        return 0;
}

int conf_edit_commit(ConfEdit *ed, CsError *e) {
        int r;

        if (edit_empty(ed))
                return remove_files(ed, e);
        /* 0644 whatever the umask, and root's: the module refuses group- or world-writable files */
        r = atomic_file_replace_full(ed->dir_fd, CONF_EDIT_FILE, 0644, ATOMIC_FILE_OWNER_ROOT, ed->ops, render, ed);
        if (r < 0)
                return cs_error(e, r, "cannot write %s: %m", ed->path);
        ed->exists = true;
        return 0;
}

void conf_edit_done(ConfEdit *ed) {
        for (size_t i = 0; i < ed->n; i++)
                line_done(&ed->lines[i]);
        free(ed->lines);
        free(ed->path);
        /* No drop-in (none was there, or the last line went, or a failed first set): no lock file
         * either, as slicectl(1) says. Unlinked before the flock goes, so no one else can hold it:
         * a waiter on this file finds it gone and retries on a new one (conf_edit_open). A drop-in
         * that is there but was refused or unreadable (exists false too) merely loses its lock file,
         * which the next editor makes again. */
        if (ed->lock_fd >= 0 && !ed->exists)
                (void) unlinkat(ed->dir_fd, CONF_EDIT_LOCK, 0);
        closep(&ed->lock_fd); /* releases the flock */
        closep(&ed->dir_fd);
        *ed = (ConfEdit) { .dir_fd = -EBADF, .lock_fd = -EBADF };
}
