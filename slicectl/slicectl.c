/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* slicectl(1): argv and verb dispatch, nothing else. The verbs live in verbs-*.c, what they share
 * in slicectl-util.c, the data gathering in rows.c, the column table in table.c (the lsirq.c /
 * irq-common.c split). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup-layout.h"
#include "cpu-value.h"
#include "parse-util.h"
#include "slicectl-util.h"
#include "table.h"
#include "time-util.h"
#include "verbs.h"

static void help(void) {
        printf("Usage: slicectl [OPTIONS] COMMAND ...\n"
               "\n"
               "Inspect, explain, validate and edit the CPU slices pam_cpuslice gives users.\n"
               "\n"
               "Commands:\n"
               "  list                     one row per user slice: settings, CPU%%, throttling, pressure\n"
               "  status USER|UID          settings and where they come from, drift, sessions, cpu.stat\n"
               "  top                      list, refreshed (q quits)\n"
               "  explain USER|UID|user.slice\n"
               "                           for each setting, the winning line and the lines it overrode\n"
               "  check [FILE...]          validate the config (exit 0 clean, 1 errors, 2 warnings only)\n"
               "  set DOMAIN SETTING=VALUE...  persist in 50-slicectl.conf and apply to running slices\n"
               "  unset DOMAIN [SETTING...]    remove what set added, and apply\n"
               "  apply [USER...]          re-apply the config to running slices\n"
               "  gc                       remove empty user slices and session scopes\n"
               "  reset [USER...]          lift pam_cpuslice's values until the next login\n"
               "  metrics                  Prometheus metrics of the user slices (--textfile DIR: DIR/cpuslice.prom)\n"
               "  penalty run              one pass of the sustained-use penalties (the timer's)\n"
               "  penalty list             who is penalized, at which level, until when\n"
               "  penalty clear USER|UID   lift a penalty now and forget its level\n"
               "\n"
               "Options of some commands, named first:\n"
               "  -J, --json               list, top, status, explain, check, penalty: JSON output\n"
               "  -r, --raw                list, top: raw output: no alignment, plain numbers, no count line\n"
               "  -n, --noheadings         list, top: no column headings and no count line\n"
               "  -o, --output LIST        list, top: columns to show (+LIST appends to the default)\n"
               "  -H, --list-columns       list, top: list the columns and exit\n"
               "  -s, --sort COLUMN        list, top: sort by COLUMN (default CPU%%)\n"
               "  -i, --interval TIME      list, top: CPU%% sample interval (default 200ms)\n"
               "  -d, --delay TIME         top: time between refreshes (default 1s)\n"
               "  -N, --iterations N       top: refresh N times, then exit\n"
               "  -b, --batch              top: no terminal control, for scripts\n"
               "      --runtime            set, unset: edit %s/50-slicectl.conf (gone at reboot)\n"
               "      --dry-run            penalty: (run) decide and print, change nothing\n"
               "      --textfile DIR       metrics: replace DIR/cpuslice.prom atomically instead of printing\n"
               "\n"
               "Where the config and the slices are, for every command that reads them:\n"
               "      --conf FILE          main config file (default %s)\n"
               "      --confdir DIR        drop-in directory (default %s)\n"
               "      --rundir DIR         runtime drop-in directory (default %s)\n"
               "      --cgroup-root DIR    cgroup mount root (default /sys/fs/cgroup)\n"
               "      --parent PATH        cgroup below which user.slice lives (default: the root)\n"
               "      --slice-root PATH    cgroup holding the user-UID.slice groups (the module's slice_root=)\n"
               "      --cgroup-layout NAME unified, legacy or hybrid (default: detect)\n"
               "      --backend NAME       auto, cgroupfs or systemd: who writes the slices (default: systemd\n"
               "                           on a host booted with systemd, else cgroupfs)\n"
               "      --bus-socket PATH    systemd backend: this D-Bus socket instead of the system bus (tests)\n"
               "      --bus-root DIR       systemd backend: look for systemd's control dirs and the record below\n"
               "                           DIR (tests)\n"
               "      --state-root DIR     penalties: keep their state and samples below DIR (tests)\n"
               "\n"
               "  -h, --help               this help\n"
               "  -V, --version            version\n"
               "\n"
               "See slicectl(1) and cpuslice.conf(5).\n",
               CONF_RUN_DIR, CONF_MAIN_FILE, CONF_DROP_IN_DIR, CONF_RUN_DIR);
}

/* --interval and --delay: a TIME (parse_sec()) of at most an hour */
static int parse_time_arg(const char *s, uint64_t *ret) {
        uint64_t usec;
        int r;

        r = parse_sec(s, &usec);
        if (r < 0)
                return r;
        if (usec > 3600 * USEC_PER_SEC)
                return -ERANGE;
        *ret = usec;
        return 0;
}

enum {
        ARG_RUNTIME = 0x100,
        ARG_CONF,
        ARG_CONFDIR,
        ARG_RUNDIR,
        ARG_CGROUP_ROOT,
        ARG_PARENT,
        ARG_SLICE_ROOT,
        ARG_CGROUP_LAYOUT,
        ARG_BACKEND,
        ARG_TEXTFILE,
        ARG_BUS_SOCKET,
        ARG_BUS_ROOT,
        ARG_DRY_RUN,
        ARG_STATE_ROOT,
};

static int parse_argv(int argc, char **argv) {
        static const struct option options[] = {
                { "json", no_argument, NULL, 'J' },
                { "raw", no_argument, NULL, 'r' },
                { "noheadings", no_argument, NULL, 'n' },
                { "output", required_argument, NULL, 'o' },
                { "list-columns", no_argument, NULL, 'H' },
                { "sort", required_argument, NULL, 's' },
                { "interval", required_argument, NULL, 'i' },
                { "delay", required_argument, NULL, 'd' },
                { "iterations", required_argument, NULL, 'N' },
                { "batch", no_argument, NULL, 'b' },
                { "runtime", no_argument, NULL, ARG_RUNTIME },
                { "dry-run", no_argument, NULL, ARG_DRY_RUN },
                { "state-root", required_argument, NULL, ARG_STATE_ROOT },
                { "conf", required_argument, NULL, ARG_CONF },
                { "confdir", required_argument, NULL, ARG_CONFDIR },
                { "rundir", required_argument, NULL, ARG_RUNDIR },
                { "cgroup-root", required_argument, NULL, ARG_CGROUP_ROOT },
                { "parent", required_argument, NULL, ARG_PARENT },
                { "slice-root", required_argument, NULL, ARG_SLICE_ROOT },
                { "cgroup-layout", required_argument, NULL, ARG_CGROUP_LAYOUT },
                { "backend", required_argument, NULL, ARG_BACKEND },
                { "textfile", required_argument, NULL, ARG_TEXTFILE },
                { "bus-socket", required_argument, NULL, ARG_BUS_SOCKET },
                { "bus-root", required_argument, NULL, ARG_BUS_ROOT },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, 'V' },
                {},
        };
        uint32_t n;
        int c, r;

        opterr = 0;
        while ((c = getopt_long(argc, argv, ":Jrno:Hs:i:d:N:bhV", options, NULL)) >= 0)
                switch (c) {
                case 'J':
                        arg_json = true;
                        break;
                case 'r':
                        arg_raw = true;
                        break;
                case 'n':
                        arg_noheadings = true;
                        break;
                case 'o':
                        arg_output = optarg;
                        break;
                case 'H':
                        columns_help(stdout);
                        return 0;
                case 's':
                        arg_sort = optarg;
                        break;
                case 'i':
                        if (parse_time_arg(optarg, &arg_interval_usec) < 0)
                                return log_error(-EINVAL, "bad --interval '%s' (e.g. 200ms, 1s; at most 1h)", optarg);
                        break;
                case 'd':
                        if (parse_time_arg(optarg, &arg_delay_usec) < 0 || arg_delay_usec == 0)
                                return log_error(-EINVAL, "bad --delay '%s' (e.g. 500ms, 2s; above 0, at most 1h)",
                                                 optarg);
                        break;
                case 'N':
                        if (safe_atou32(optarg, &n) < 0 || n == 0)
                                return log_error(-EINVAL, "bad --iterations '%s' (a number above 0)", optarg);
                        arg_iterations = n;
                        break;
                case 'b':
                        arg_batch = true;
                        break;
                case ARG_DRY_RUN:
                        arg_dry_run = true;
                        break;
                case ARG_STATE_ROOT:
                        arg_state_root = optarg;
                        break;
                case ARG_RUNTIME:
                        arg_runtime = true;
                        break;
                case ARG_CONF:
                        arg_conf.main_file = optarg;
                        break;
                case ARG_CONFDIR:
                        arg_conf.drop_in_dir = optarg;
                        break;
                case ARG_RUNDIR:
                        arg_conf.run_dir = optarg;
                        break;
                case ARG_CGROUP_ROOT:
                        arg_target.cgroup_root = optarg;
                        break;
                case ARG_PARENT:
                        arg_target.parent = optarg;
                        break;
                case ARG_SLICE_ROOT:
                        arg_target.slice_root = optarg;
                        break;
                case ARG_CGROUP_LAYOUT:
                        arg_target.layout = cgroup_layout_kind_from_string(optarg);
                        if (arg_target.layout < 0)
                                return log_error(-EINVAL, "unknown --cgroup-layout '%s' (unified, legacy or hybrid)",
                                                 optarg);
                        break;
                case ARG_BACKEND:
                        r = slice_backend_from_string(optarg);
                        if (r < 0)
                                return log_error(-EINVAL, "unknown --backend '%s' (auto, cgroupfs or systemd)",
                                                 optarg);
                        arg_target.backend = r;
                        break;
                case ARG_TEXTFILE:
                        arg_textfile = optarg;
                        break;
                case ARG_BUS_SOCKET:
                        if (optarg[0] != '/')
                                return log_error(-EINVAL, "--bus-socket needs an absolute path");
                        arg_target.bus.socket = optarg;
                        break;
                case ARG_BUS_ROOT:
                        arg_target.bus.root = optarg;
                        break;
                case 'h':
                        help();
                        return 0;
                case 'V':
                        printf("slicectl %s\n", PACKAGE_VERSION);
                        return 0;
                case ':':
                        return log_error(-EINVAL, "option '%s' needs a value", argv[optind - 1]);
                default:
                        return log_error(-EINVAL, "unknown option '%s' (see --help)", argv[optind - 1]);
                }
        if (arg_json && arg_raw)
                return log_error(-EINVAL, "--json and --raw do not go together");
        return 1;
}

static const struct {
        const char *name;
        int (*run)(int argc, char **argv);
} verbs[] = {
        { "list", verb_list },   { "status", verb_status },   { "top", verb_top },     { "explain", verb_explain },
        { "check", verb_check }, { "set", verb_set },         { "unset", verb_unset }, { "apply", verb_apply },
        { "gc", verb_gc },       { "metrics", verb_metrics }, { "reset", verb_reset }, { "penalty", verb_penalty },
};

int main(int argc, char **argv) {
        const char *verb;
        int r;

        r = parse_argv(argc, argv);
        if (r <= 0)
                return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
        argc -= optind;
        argv += optind;
        verb = argc > 0 ? argv[0] : "list";
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if (strcmp(verb, verbs[i].name) == 0) {
                        char list_verb[] = "list", *list_argv[] = { list_verb, NULL };
                        r = verbs[i].run(argc > 0 ? argc : 1, argc > 0 ? argv : list_argv);
                        if (fflush(stdout) != 0 && r >= 0)
                                r = log_error(-EIO, "cannot write output: %m");
                        /* a verb's own statuses (check 2, status 3) are listed in verbs.h */
                        return r < 0 ? EXIT_FAILURE : r;
                }
        if (strcmp(verb, "help") == 0) {
                help();
                return EXIT_SUCCESS;
        }
        log_error(-EINVAL, "unknown command '%s' (see --help)", verb);
        return EXIT_FAILURE;
}
