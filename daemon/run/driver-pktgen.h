/* driver-pktgen.h: the command lines the pktgen driver (driver-pktgen.c) runs as root for
 * the client that asked: ip and tc in the generator's namespace (what the frames need, the
 * tbf qdisc that paces trafgen), then trafgen or netmetrics-pktgen. Exported so that the
 * privileged process's allow-list (privsep-check.c) is tested on the very argv the driver
 * builds (tests/unit/test-privsep-shapes.c). */
#ifndef NM_DRIVER_PKTGEN_H
#define NM_DRIVER_PKTGEN_H

struct test_spec;

/* trafgen's configuration: TMPDIR/PKTGEN_CFG_DIR"XXXXXX"/PKTGEN_CFG_FILE (mkdtemp). */
#define PKTGEN_CFG_DIR  "netmetrics-pktgen."
#define PKTGEN_CFG_FILE "trafgen.cfg"

/* The ip and tc runs of the driver, in the order they come. */
enum pktgen_step {
	PKTGEN_STEP_ADDR,    /* ip [-n NS] -j addr show dev DEV */
	PKTGEN_STEP_ROUTE,   /* ip [-n NS] -j -4 route get DST_MIN */
	PKTGEN_STEP_NEIGH,   /* ip [-n NS] -j -4 neigh show to HOP dev DEV */
	PKTGEN_STEP_QDISC,   /* tc [-n NS] -j qdisc show dev DEV */
	PKTGEN_STEP_TBF_ADD, /* tc [-n NS] qdisc add dev DEV root tbf rate Nbit burst N limit N */
	PKTGEN_STEP_TBF_DEL, /* tc [-n NS] qdisc del dev DEV root */
};

/* The program a step runs: "ip" or "tc". */
const char *pktgen_step_tool(enum pktgen_step step);
/* The argv of step for s, the tool at path (argv[0]), hop the next hop (NEIGH only).
 * Free with runner_strv_free. */
char **pktgen_step_argv(enum pktgen_step step, const struct test_spec *s, const char *path,
                        const char *hop);
/* The generator's argv: netmetrics-pktgen's writes (s->generator "pktgen"), or trafgen on
 * the configuration cfg, program as argv[0]. Free with runner_strv_free. */
char **pktgen_generator_argv(const struct test_spec *s, const char *program, const char *cfg);

#endif
