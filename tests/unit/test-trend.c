/* test-trend.c: plateau, onset, decayed level and recovery found in synthetic series (steady,
 * a step down, a decay that recovers, a noisy plateau with short dips, an idle lead-in, a
 * ramp, two episodes, too short, idle), and the ranking of the counters that moved. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "trend.h"

#define MAXPTS 512

/* A series built segment by segment: points every step seconds from t = step. */
struct series {
	struct trend_point p[MAXPTS];
	size_t n;
	double step;
};

static void
series_init(struct series *s, double step)
{
	memset(s, 0, sizeof(*s));
	s->step = step;
}

/* Append count points of value v. */
static void
seg(struct series *s, size_t count, double v)
{
	for (size_t i = 0; i < count; i++) {
		assert_true(s->n < MAXPTS);
		s->p[s->n].t = (double)(s->n + 1) * s->step;
		s->p[s->n].v = v;
		s->n++;
	}
}

/* Append count points cycling through vals[0..nv). */
static void
seg_cycle(struct series *s, size_t count, const double *vals, size_t nv)
{
	for (size_t i = 0; i < count; i++)
		seg(s, 1, vals[i % nv]);
}

static void
analyse(const struct series *s, const struct trend_params *p, struct trend_result *r)
{
	struct trend_params def;

	if (p == NULL) {
		trend_params_default(&def);
		p = &def;
	}
	trend_analyse(s->p, s->n, p, r);
	assert_int_equal(r->npoints, s->n);
}

#define assert_near(a, b) assert_true(fabs((a) - (b)) < 1e-9)
#define MOVER(n, b, a)                                                                             \
	{                                                                                          \
		.name = (n), .before = (b), .after = (a)                                           \
	}

/* A constant rate: steady, the plateau over the whole span. */
static void
test_steady(void **state)
{
	struct series s;
	struct trend_result r;

	(void)state;
	series_init(&s, 1);
	seg(&s, 60, 1000);
	analyse(&s, NULL, &r);
	assert_int_equal(r.verdict, TREND_STEADY);
	assert_string_equal(trend_verdict_name(r.verdict), "steady");
	assert_near(r.plateau, 1000);
	assert_near(r.plateau_start, 0);
	assert_near(r.plateau_end, 60);
	assert_false(r.has_onset);
	assert_false(r.has_recovery);
	assert_int_equal(r.decays, 0);
}

/* 5 Mpps for 30 s, then 1.8 Mpps: the decay starts at 30 s, where the first low second
 * begins. */
static void
test_step_down(void **state)
{
	struct series s;
	struct trend_result r;

	(void)state;
	series_init(&s, 1);
	seg(&s, 30, 5e6);
	seg(&s, 30, 1.8e6);
	analyse(&s, NULL, &r);
	assert_int_equal(r.verdict, TREND_DECAY);
	assert_string_equal(trend_verdict_name(r.verdict), "decay");
	assert_near(r.plateau, 5e6);
	assert_near(r.plateau_start, 0);
	assert_near(r.plateau_end, 30);
	assert_true(r.has_onset);
	assert_near(r.onset, 30);
	assert_near(r.onset_level, 1.8e6);
	assert_near(r.decayed_start, 30);
	assert_near(r.decayed_end, 60);
	assert_near(r.decayed, 1.8e6);
	assert_false(r.has_recovery);
	assert_int_equal(r.decays, 1);
}

/* The step where the rate fell mixes both levels: it starts the decay, but the onset's
 * level is that of the steps after it. */
static void
test_transition_step(void **state)
{
	struct series s;
	struct trend_result r;

	(void)state;
	series_init(&s, 1);
	seg(&s, 30, 1000);
	seg(&s, 1, 650);
	seg(&s, 29, 300);
	analyse(&s, NULL, &r);
	assert_int_equal(r.verdict, TREND_DECAY);
	assert_near(r.onset, 30);
	assert_near(r.onset_level, 300);
	assert_near(r.decayed, 300);

	/* A mixed step above the threshold is still plateau. */
	series_init(&s, 1);
	seg(&s, 30, 1000);
	seg(&s, 1, 750);
	seg(&s, 29, 300);
	analyse(&s, NULL, &r);
	assert_near(r.onset, 31);
	assert_near(r.plateau_end, 31);
	assert_near(r.onset_level, 300);
}

/* Down to 30% for 20 s, then back at 95%: recovered at 40 s. */
static void
test_decay_then_recovery(void **state)
{
	struct series s;
	struct trend_result r;

	(void)state;
	series_init(&s, 1);
	seg(&s, 20, 1000);
	seg(&s, 20, 300);
	seg(&s, 20, 950);
	analyse(&s, NULL, &r);
	assert_int_equal(r.verdict, TREND_DECAY_RECOVERED);
	assert_string_equal(trend_verdict_name(r.verdict), "decay-recovered");
	assert_near(r.plateau, 1000);
	assert_near(r.plateau_end, 20);
	assert_near(r.onset, 20);
	assert_near(r.onset_level, 300);
	assert_near(r.decayed_start, 20);
	assert_near(r.decayed_end, 40);
	assert_near(r.decayed, 300);
	assert_true(r.has_recovery);
	assert_near(r.recovery, 40);
	assert_near(r.recovery_level, 950);
	assert_int_equal(r.decays, 1);
}

/* A plateau of +-10% noise with dips to 50% shorter than sustain, then a noisy decay with
 * one spike back up: the onset is where the low stretch starts, the levels are medians. */
static void
test_noisy_plateau(void **state)
{
	static const double high[] = {950, 1050, 1000, 900, 1100};
	static const double low[] = {400, 380, 420, 360, 440};
	struct series s;
	struct trend_result r;

	(void)state;
	series_init(&s, 1);
	seg_cycle(&s, 10, high, 5);
	seg(&s, 2, 500); /* a 2 s dip at 11-12 s */
	seg_cycle(&s, 10, high, 5);
	seg(&s, 4, 600); /* a 4 s dip at 23-26 s: still shorter than 5 s */
	seg_cycle(&s, 4, high, 5);
	assert_int_equal(s.n, 30);
	seg_cycle(&s, 30, low, 5);
	s.p[45].v = 900; /* one second back up: no recovery */
	analyse(&s, NULL, &r);
	assert_int_equal(r.verdict, TREND_DECAY);
	/* The median of the first 10 s: each of the five values twice. */
	assert_near(r.plateau, 1000);
	assert_near(r.plateau_end, 30);
	assert_near(r.onset, 30);
	assert_near(r.onset_level, 400); /* the run after its first point: 380 420 360 440 */
	/* 360, 380, 420 and 440 six times, 400 five times and 900 once: 400. */
	assert_near(r.decayed, 400);
	assert_near(r.decayed_end, 60);
	assert_false(r.has_recovery);
	assert_int_equal(r.decays, 1);
}

/* Fewer than 3 points, or traffic shorter than the plateau: too short to tell. */
static void
test_too_short(void **state)
{
	struct series s;
	struct trend_result r;
	struct trend_params p;

	(void)state;
	series_init(&s, 1);
	seg(&s, 2, 1000);
	analyse(&s, NULL, &r);
	assert_int_equal(r.verdict, TREND_TOO_SHORT);
	assert_string_equal(trend_verdict_name(r.verdict), "too-short");
	assert_false(r.has_onset);

	series_init(&s, 1);
	seg(&s, 8, 1000);
	analyse(&s, NULL, &r);
	assert_int_equal(r.verdict, TREND_TOO_SHORT);

	/* 8 s of traffic after 5 s idle: still too short. */
	series_init(&s, 1);
	seg(&s, 5, 0);
	seg(&s, 8, 1000);
	analyse(&s, NULL, &r);
	assert_int_equal(r.verdict, TREND_TOO_SHORT);

	/* A shorter plateau makes it enough. */
	trend_params_default(&p);
	p.plateau_s = 4;
	analyse(&s, &p, &r);
	assert_int_equal(r.verdict, TREND_STEADY);
	assert_near(r.plateau_start, 5);
	assert_near(r.plateau, 1000);

	trend_analyse(NULL, 0, &p, &r);
	assert_int_equal(r.verdict, TREND_TOO_SHORT);
	assert_int_equal(r.npoints, 0);
}

/* No traffic at all. */
static void
test_idle(void **state)
{
	struct series s;
	struct trend_result r;

	(void)state;
	series_init(&s, 1);
	seg(&s, 30, 0);
	analyse(&s, NULL, &r);
	assert_int_equal(r.verdict, TREND_IDLE);
	assert_string_equal(trend_verdict_name(r.verdict), "idle");
	assert_false(r.has_onset);
}

/* The idle lead-in before a test (and background noise in it) is not part of the plateau;
 * a ramp-up is, and the median ignores it. */
static void
test_lead_in_and_ramp(void **state)
{
	struct series s;
	struct trend_result r;

	(void)state;
	series_init(&s, 1);
	seg(&s, 3, 0);
	seg(&s, 2, 3); /* background, under 10% of the level */
	seg(&s, 30, 1000);
	analyse(&s, NULL, &r);
	assert_int_equal(r.verdict, TREND_STEADY);
	assert_near(r.plateau_start, 5);
	assert_near(r.plateau_end, 35);
	assert_near(r.plateau, 1000);

	series_init(&s, 1);
	seg(&s, 1, 200);
	seg(&s, 1, 500);
	seg(&s, 1, 800);
	seg(&s, 30, 1000);
	analyse(&s, NULL, &r);
	assert_int_equal(r.verdict, TREND_STEADY);
	assert_near(r.plateau_start, 0);
	assert_near(r.plateau, 1000);
}

/* A dip shorter than sustain is no decay; with a shorter sustain it is, and it recovers. A
 * drop at the very end shorter than sustain is not confirmed. */
static void
test_sustain(void **state)
{
	struct series s;
	struct trend_result r;
	struct trend_params p;

	(void)state;
	series_init(&s, 1);
	seg(&s, 30, 1000);
	seg(&s, 4, 100);
	seg(&s, 30, 1000);
	analyse(&s, NULL, &r);
	assert_int_equal(r.verdict, TREND_STEADY);
	assert_near(r.plateau_end, 64);

	trend_params_default(&p);
	p.sustain_s = 4;
	analyse(&s, &p, &r);
	assert_int_equal(r.verdict, TREND_DECAY_RECOVERED);
	assert_near(r.onset, 30);
	assert_near(r.onset_level, 100);
	assert_near(r.decayed_end, 34);
	assert_near(r.recovery, 34);
	assert_near(r.recovery_level, 1000);

	series_init(&s, 1);
	seg(&s, 30, 1000);
	seg(&s, 4, 100);
	analyse(&s, NULL, &r);
	assert_int_equal(r.verdict, TREND_STEADY);
}

/* The threshold decides what counts as a decay; recovery needs recover x plateau. */
static void
test_threshold_and_recover(void **state)
{
	struct series s;
	struct trend_result r;
	struct trend_params p;

	(void)state;
	series_init(&s, 1);
	seg(&s, 30, 1000);
	seg(&s, 30, 750);
	analyse(&s, NULL, &r);
	assert_int_equal(r.verdict, TREND_STEADY);

	trend_params_default(&p);
	p.threshold = 0.8;
	analyse(&s, &p, &r);
	assert_int_equal(r.verdict, TREND_DECAY);
	assert_near(r.onset, 30);
	assert_near(r.decayed, 750);

	/* Back to 85%: not recovered at 0.9, recovered at 0.85. */
	series_init(&s, 1);
	seg(&s, 20, 1000);
	seg(&s, 20, 300);
	seg(&s, 20, 850);
	analyse(&s, NULL, &r);
	assert_int_equal(r.verdict, TREND_DECAY);
	assert_near(r.decayed_end, 60);
	assert_near(r.decayed, 575); /* 20 of 300 and 20 of 850: the mean of the middle two */
	trend_params_default(&p);
	p.recover = 0.85;
	analyse(&s, &p, &r);
	assert_int_equal(r.verdict, TREND_DECAY_RECOVERED);
	assert_near(r.recovery, 40);
	assert_near(r.recovery_level, 850);
}

/* Half-second points: times and durations in seconds, not points. */
static void
test_half_second_step(void **state)
{
	struct series s;
	struct trend_result r;

	(void)state;
	series_init(&s, 0.5);
	seg(&s, 40, 1000);
	seg(&s, 9, 100); /* 4.5 s: not yet */
	seg(&s, 1, 1000);
	seg(&s, 20, 100);
	analyse(&s, NULL, &r);
	assert_int_equal(r.verdict, TREND_DECAY);
	assert_near(r.plateau, 1000);
	assert_near(r.onset, 25);
	assert_near(r.onset_level, 100);
	assert_near(r.decayed_end, 35);
}

/* Two decays with a recovery between: the first episode's fields, two decays, and the
 * verdict says how the span ends. */
static void
test_two_episodes(void **state)
{
	struct series s;
	struct trend_result r;

	(void)state;
	series_init(&s, 1);
	seg(&s, 15, 1000);
	seg(&s, 10, 200);
	seg(&s, 10, 1000);
	seg(&s, 10, 200);
	analyse(&s, NULL, &r);
	assert_int_equal(r.verdict, TREND_DECAY);
	assert_int_equal(r.decays, 2);
	assert_near(r.onset, 15);
	assert_near(r.decayed_end, 25);
	assert_true(r.has_recovery);
	assert_near(r.recovery, 25);
	assert_near(r.recovery_level, 1000); /* up to the second decay */

	seg(&s, 10, 1000);
	analyse(&s, NULL, &r);
	assert_int_equal(r.verdict, TREND_DECAY_RECOVERED);
	assert_int_equal(r.decays, 2);
}

/* A decay 5 s in, inside the 10 s the plateau is taken from: the plateau is the traffic
 * before the onset. */
static void
test_early_decay(void **state)
{
	struct series s;
	struct trend_result r;

	(void)state;
	series_init(&s, 1);
	seg(&s, 5, 1000);
	seg(&s, 20, 400);
	analyse(&s, NULL, &r);
	assert_int_equal(r.verdict, TREND_DECAY);
	assert_near(r.plateau, 1000);
	assert_near(r.plateau_end, 5);
	assert_near(r.onset, 5);
	assert_near(r.onset_level, 400);
	assert_near(r.decayed, 400);
}

/* Movers: drops from nothing rank first, then large relative moves; tiny counts and
 * counters that did not move are left out. */
static void
test_rank_movers(void **state)
{
	struct trend_mover m[] = {
	    MOVER("link.eth0.rx_packets", 5e6, 1.8e6),
	    MOVER("lnstat.arp_cache.table_fulls", 2, 3),
	    MOVER("tiny", 0.2, 0.5),
	    MOVER("still", 1000, 1000.5),
	    MOVER("lnstat.nf_conntrack.drop", 0, 5000),
	    MOVER("softnet.cpu3.time_squeeze", 10, 400),
	};
	size_t n;

	(void)state;
	n = trend_rank_movers(m, sizeof(m) / sizeof(m[0]), 1.0);
	assert_int_equal(n, 4);
	assert_string_equal(m[0].name, "lnstat.nf_conntrack.drop");
	assert_near(m[0].change, 5000);
	assert_string_equal(m[1].name, "softnet.cpu3.time_squeeze");
	assert_near(m[1].change, 39);
	assert_string_equal(m[2].name, "link.eth0.rx_packets");
	assert_near(m[2].change, -0.64);
	assert_near(m[2].before, 5e6);
	assert_near(m[2].after, 1.8e6);
	assert_string_equal(m[3].name, "lnstat.arp_cache.table_fulls");
	assert_near(m[3].change, 0.5);

	/* Ties on |change|: the larger absolute move first, then the name. */
	struct trend_mover t[] = {MOVER("small", 10, 20), MOVER("b", 100, 200),
	                          MOVER("a", 100, 200), MOVER("down", 200, 0)};
	n = trend_rank_movers(t, 4, 1.0);
	assert_int_equal(n, 4);
	assert_string_equal(t[0].name, "down");
	assert_near(t[0].change, -1);
	assert_string_equal(t[1].name, "a");
	assert_string_equal(t[2].name, "b");
	assert_string_equal(t[3].name, "small");
	assert_near(t[3].change, 1);

	assert_int_equal(trend_rank_movers(NULL, 0, 1.0), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_steady),
	    cmocka_unit_test(test_step_down),
	    cmocka_unit_test(test_transition_step),
	    cmocka_unit_test(test_decay_then_recovery),
	    cmocka_unit_test(test_noisy_plateau),
	    cmocka_unit_test(test_too_short),
	    cmocka_unit_test(test_idle),
	    cmocka_unit_test(test_lead_in_and_ramp),
	    cmocka_unit_test(test_sustain),
	    cmocka_unit_test(test_threshold_and_recover),
	    cmocka_unit_test(test_half_second_step),
	    cmocka_unit_test(test_two_episodes),
	    cmocka_unit_test(test_early_decay),
	    cmocka_unit_test(test_rank_movers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
