/* test-knob: the table of tuning knobs (daemon/tune/knob.c) is whole. Every entry of knobs[]
 * has every op a knob must have, its names are unique, its kind round-trips through
 * plan_kind_name/plan_kind_parse, its section is the one profile files and "profile
 * show"/"profiles" use, and plan orders are unique. A half-filled entry (a knob added
 * with an op missing) fails here; the test shows it by checking a copy with one op cut.
 * The messages that list the knobs, built from the table now, say what they said when
 * they were written by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "knob.h"
#include "profile.h"

/* Is k a whole entry? false with why. */
static bool
complete(const struct knob_ops *k, char *why, size_t size)
{
#define NEED(f)                                                                                    \
	do {                                                                                       \
		if (!(k->f)) {                                                                     \
			snprintf(why, size, "[%s]: no " #f, k->section ? k->section : "?");        \
			return false;                                                              \
		}                                                                                  \
	} while (0)
	NEED(section);
	NEED(section[0]);
	NEED(key);
	NEED(check);
	NEED(present);
	NEED(plan);
	NEED(kind_name);
	NEED(kind_name[0]);
	NEED(file);
	NEED(path);
	NEED(read);
	NEED(write);
	NEED(same);
	NEED(display);
	NEED(value_on);
	NEED(write_hint);
	NEED(readback_hint);
#undef NEED
	if ((k->setting == NULL) != (k->setting_ini == NULL)) {
		snprintf(why, size, "[%s]: setting and setting_ini go together", k->section);
		return false;
	}
	if (k->index != KNOB_INDEX_NONE && k->index != KNOB_INDEX_QUEUE &&
	    k->index != KNOB_INDEX_IRQ) {
		snprintf(why, size, "[%s]: no index", k->section);
		return false;
	}
	if (k->priv != KNOB_PRIV_WRITE && k->priv != KNOB_PRIV_NTUPLE &&
	    k->priv != KNOB_PRIV_FEATURE && k->priv != KNOB_PRIV_CHANNELS &&
	    k->priv != KNOB_PRIV_NAPI && k->priv != KNOB_PRIV_RINGS &&
	    k->priv != KNOB_PRIV_COALESCE && k->priv != KNOB_PRIV_RSS) {
		snprintf(why, size, "[%s]: no privileged op", k->section);
		return false;
	}
	/* A file is written as a file (PS_WRITE), the ntuple feature through PS_NTUPLE. */
	if ((k->priv == KNOB_PRIV_WRITE) != (k->write == knob_file_write)) {
		snprintf(why, size, "[%s]: priv says %s but write is %s", k->section,
		         k->priv == KNOB_PRIV_WRITE ? "PS_WRITE" : "PS_NTUPLE",
		         k->write == knob_file_write ? "the file" : "its own");
		return false;
	}
	if ((k->priv == KNOB_PRIV_WRITE) != (k->allow != NULL)) {
		snprintf(why, size, "[%s]: a file it writes needs its allow-list (allow)",
		         k->section);
		return false;
	}
	if ((unsigned)k->kind >= PLAN_KIND__COUNT) {
		snprintf(why, size, "[%s]: kind out of range", k->section);
		return false;
	}
	return true;
}

/* Every entry is whole; a copy with an op cut is not. */
static void
test_entries_complete(void **state)
{
	char why[128];

	(void)state;
	assert_true(knobs_n > 0);
	for (size_t i = 0; i < knobs_n; i++) {
		assert_non_null(knobs[i]);
		if (!complete(knobs[i], why, sizeof(why)))
			fail_msg("knobs[%zu]: %s", i, why);
	}
	/* The check itself catches a half-filled entry. */
	struct knob_ops half = *knob_by_section("xps");
	half.same = NULL;
	assert_false(complete(&half, why, sizeof(why)));
	assert_string_equal(why, "[xps]: no same");
	half = *knob_by_section("rfs");
	half.setting_ini = NULL;
	assert_false(complete(&half, why, sizeof(why)));
	half = *knob_by_section("arfs");
	half.priv = KNOB_PRIV_WRITE;
	assert_false(complete(&half, why, sizeof(why)));
}

/* Sections, kinds, kind names, settings and plan orders are unique; every plan kind has
 * its knob. */
static void
test_names_unique(void **state)
{
	(void)state;
	for (size_t i = 0; i < knobs_n; i++) {
		const struct knob_ops *a = knobs[i];
		assert_string_not_equal(a->section, "profile");
		for (size_t j = i + 1; j < knobs_n; j++) {
			const struct knob_ops *b = knobs[j];
			assert_string_not_equal(a->section, b->section);
			assert_string_not_equal(a->kind_name, b->kind_name);
			assert_int_not_equal(a->kind, b->kind);
			assert_int_not_equal(a->plan_order, b->plan_order);
			if (a->setting && b->setting)
				assert_string_not_equal(a->setting, b->setting);
		}
		assert_ptr_equal(knob_by_section(a->section), a);
		assert_ptr_equal(knob_of_kind(a->kind), a);
		assert_string_equal(plan_kind_name(a->kind), a->kind_name);
		assert_int_equal(plan_kind_parse(a->kind_name), (int)a->kind);
	}
	for (int k = 0; k < PLAN_KIND__COUNT; k++)
		assert_non_null(knob_of_kind((enum plan_kind)k));
	/* Today's write order: the channel counts first, the device's features (offloads), its NAPI
	 * settings, sysctls (rps_sock_flow_entries among them) before the flow counts, RPS, XPS,
	 * IRQ affinity, ntuple last. */
	char order[256] = "";
	for (size_t i = 0; i < knobs_n; i++) {
		size_t before = 0;
		for (size_t j = 0; j < knobs_n; j++)
			before += knobs[j]->plan_order < knobs[i]->plan_order;
		snprintf(order + strlen(order), sizeof(order) - strlen(order), "%zu=%s ", before,
		         knobs[i]->section);
	}
	assert_string_equal(order, "11=irq 10=xps 9=rps 8=rfs 12=arfs 7=sysctl 0=channels 1=rings "
	                           "2=coalesce 3=offloads 4=rss 5=napi 6=napi_queue ");
	assert_null(knob_by_section("profile"));
	assert_int_equal(plan_kind_parse("nope"), -1);
	assert_string_equal(plan_kind_name(PLAN_KIND__COUNT), "unknown");
}

/* Each knob's section is the one profile files use: a key in [SECTION] reaches the knob
 * (its own error, not "unknown section"), and a profile with every section lists them, in
 * table order, as profile show and profiles do. */
static void
test_sections_are_the_files(void **state)
{
	static const char all[] = "[irq]\npolicy = spread\ncpus = 0-3\n"
	                          "[xps]\npolicy = one-to-one\ncpus = 0-3\n"
	                          "[rps]\ncpus = 0-3\n"
	                          "[rfs]\nflow_cnt = 2048\n"
	                          "[arfs]\nntuple = on\n"
	                          "[sysctl]\nnet.core.somaxconn = 4096\n"
	                          "[channels]\nrx = 2\n"
	                          "[rings]\nrx = 512\n"
	                          "[coalesce]\nrx-usecs = 8\n"
	                          "[offloads]\ngro = on\n"
	                          "[rss]\nequal = 2\n"
	                          "[napi]\nthreaded = on\n"
	                          "[napi_queue]\nrx-0.defer_hard_irqs = 2\n";
	struct profile p;
	struct nm_error err;
	json_object *a;
	char text[256], section[64];

	(void)state;
	for (size_t i = 0; i < knobs_n; i++) {
		snprintf(section, sizeof(section), "[%s]", knobs[i]->section);
		snprintf(text, sizeof(text), "%s\nno.such-key = 1\n", section);
		assert_int_equal(profile_parse_ini(&p, "t", text, strlen(text), &err), -1);
		assert_null(strstr(err.message, "unknown section"));
		if (strstr(err.message, section) == NULL)
			fail_msg("%s: %s", section, err.message);
	}
	assert_int_equal(profile_parse_ini(&p, "t", all, strlen(all), &err), 0);
	a = profile_sections_json(&p);
	assert_int_equal(json_object_array_length(a), knobs_n);
	for (size_t i = 0; i < knobs_n; i++) {
		assert_true(knobs[i]->present(&p));
		assert_string_equal(json_object_get_string(json_object_array_get_idx(a, i)),
		                    knobs[i]->section);
	}
	json_object_put(a);
	profile_free(&p);
}

/* The privileged process allows the file each knob writes (its own allow-list says yes,
 * every other knob's says it is not theirs), and refuses the files of no knob. */
static void
test_allow_agrees_with_file(void **state)
{
	char why[256];

	(void)state;
	for (size_t i = 0; i < knobs_n; i++) {
		const struct knob_ops *k = knobs[i];
		struct plan_entry e;
		enum profile_base base;
		char rel[256];
		if (k->priv != KNOB_PRIV_WRITE)
			continue;
		memset(&e, 0, sizeof(e));
		e.kind = k->kind;
		e.index = 3;
		snprintf(e.dev, sizeof(e.dev), "eth0");
		snprintf(e.name, sizeof(e.name), "%s",
		         k->kind == PLAN_NAPI ? "gro_flush_timeout" : "net.core.somaxconn");
		assert_int_equal(k->file(&e, &base, rel, sizeof(rel)), 0);
		assert_int_equal(base, k->base);
		if (k->allow(rel, "1", why, sizeof(why)) != 1)
			fail_msg("[%s]: %s not allowed: %s", k->section, rel, why);
		for (size_t j = 0; j < knobs_n; j++)
			if (j != i && knobs[j]->allow != NULL && knobs[j]->base == base)
				assert_int_equal(knobs[j]->allow(rel, "1", why, sizeof(why)), 0);
	}
	/* No knob's file. */
	for (size_t i = 0; i < knobs_n; i++)
		if (knobs[i]->allow != NULL) {
			assert_int_equal(
			    knobs[i]->allow("queues/tx-0/rps_cpus", "1", why, sizeof(why)), 0);
			assert_int_equal(knobs[i]->allow("../x", "1", why, sizeof(why)), 0);
		}
	/* A file of the knob with a value it does not take. */
	assert_int_equal(
	    knob_by_section("rps")->allow("queues/rx-0/rps_cpus", "0x1", why, sizeof(why)), -1);
	assert_string_equal(why, "queues/rx-0/rps_cpus: not a hex CPU mask");
}

/* The messages that list the knobs say what the hand-written lists said. */
static void
test_messages(void **state)
{
	static const char empty[] = "[profile]\nname = x\n", bad[] = "[nope]\nx = 1\n";
	struct profile p;
	struct nm_error err;
	json_object *w;
	char buf[128];

	(void)state;
	knob_list_sections(buf, sizeof(buf), false);
	assert_string_equal(buf, "irq, xps, rps, rfs, arfs, sysctl, channels, rings, coalesce, "
	                         "offloads, rss, napi, napi_queue");
	knob_list_sections(buf, sizeof(buf), true);
	assert_string_equal(buf, "[irq], [xps], [rps], [rfs], [arfs], [sysctl], [channels], "
	                         "[rings], [coalesce], [offloads], [rss], [napi], [napi_queue]");
	knob_list_settings(buf, sizeof(buf));
	assert_string_equal(
	    buf, "irq, xps, rps, rfs, ntuple, channels, rings, offloads, rss, napi, napi_queue");
	assert_int_equal(profile_parse_ini(&p, "t", bad, strlen(bad), &err), -1);
	assert_non_null(
	    strstr(err.message,
	           "unknown section [nope] (profile, irq, xps, rps, rfs, "
	           "arfs, sysctl, channels, rings, coalesce, offloads, rss, napi, napi_queue)"));
	assert_int_equal(profile_parse_ini(&p, "t", empty, strlen(empty), &err), -1);
	assert_non_null(
	    strstr(err.message,
	           "the profile changes nothing: give at least one of "
	           "[irq], [xps], [rps], [rfs], [arfs], [sysctl], "
	           "[channels], [rings], [coalesce], [offloads], [rss], [napi], [napi_queue]"));
	w = json_object_new_array();
	assert_int_equal(profile_parse_settings(&p, "t", w, &err), -1);
	assert_string_equal(err.message,
	                    "give at least one KNOB=VALUE (irq, xps, rps, rfs, "
	                    "ntuple, channels, rings, offloads, rss, napi, napi_queue)");
	json_object_array_add(w, json_object_new_string("foo=1"));
	assert_int_equal(profile_parse_settings(&p, "t", w, &err), -1);
	assert_string_equal(err.message, "\"foo=1\": unknown knob (irq, xps, rps, rfs, ntuple, "
	                                 "channels, rings, offloads, rss, napi, napi_queue)");
	json_object_put(w);
	w = json_object_new_array();
	json_object_array_add(w, json_object_new_string("rps"));
	assert_int_equal(profile_parse_settings(&p, "t", w, &err), -1);
	assert_string_equal(err.message, "\"rps\": give KNOB=VALUE (irq, xps, rps, rfs, ntuple, "
	                                 "channels, rings, offloads, rss, napi, napi_queue)");
	json_object_put(w);
	/* Every KNOB=VALUE knob once, each to its section, in table order. */
	w = json_object_new_array();
	json_object_array_add(w, json_object_new_string("ntuple=on"));
	json_object_array_add(w, json_object_new_string("irq=0-3"));
	json_object_array_add(w, json_object_new_string("rfs=4096"));
	json_object_array_add(w, json_object_new_string("xps=none"));
	json_object_array_add(w, json_object_new_string("rps=1"));
	json_object_array_add(w, json_object_new_string("napi=defer-2,flush-20000,threaded"));
	json_object_array_add(w, json_object_new_string("offloads=gro,no-lro,rx-gro-hw"));
	json_object_array_add(w, json_object_new_string("channels=rx4-tx2"));
	json_object_array_add(w, json_object_new_string("rings=rx1024-tx512"));
	json_object_array_add(w, json_object_new_string("rss=1,1,2"));
	json_object_array_add(w, json_object_new_string("napi_queue=defer-3,flush-1000"));
	assert_int_equal(profile_parse_settings(&p, "t", w, &err), 0);
	assert_true(p.napi.has_defer_hard_irqs && p.napi.defer_hard_irqs == 2);
	assert_true(p.napi.has_gro_flush_timeout && p.napi.gro_flush_timeout == 20000);
	assert_int_equal(p.napi.threaded, PROFILE_SWITCH_ON);
	assert_int_equal(p.channels.rx, 4);
	assert_int_equal(p.channels.tx, 2);
	assert_int_equal(p.channels.combined, 0);
	assert_int_equal(p.rings[0], 1024);
	assert_int_equal(p.rings[1], 512);
	assert_int_equal(p.rss.nweights, 3);
	assert_int_equal(p.rss.weights[2], 2);
	assert_int_equal(p.rss.equal, 0);
	assert_true(p.napiq.has_all[0] && p.napiq.all[0] == 3);
	assert_true(p.napiq.has_all[1] && p.napiq.all[1] == 1000);
	assert_int_equal(p.noffloads, 3);
	assert_string_equal(p.offloads[0].name, "rx-gro");
	assert_true(p.offloads[0].on);
	assert_string_equal(p.offloads[1].name, "rx-lro");
	assert_false(p.offloads[1].on);
	assert_string_equal(p.offloads[2].name, "rx-gro-hw");
	assert_true(p.offloads[2].on);
	json_object *a = profile_sections_json(&p);
	assert_string_equal(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN),
	                    "[\"irq\",\"xps\",\"rps\",\"rfs\",\"arfs\",\"channels\",\"rings\","
	                    "\"offloads\",\"rss\",\"napi\",\"napi_queue\"]");
	json_object_put(a);
	profile_free(&p);
	json_object_array_add(w, json_object_new_string("xps=0"));
	assert_int_equal(profile_parse_settings(&p, "t", w, &err), -1);
	assert_string_equal(err.message, "\"xps=0\": that knob is given twice");
	json_object_put(w);
	w = json_object_new_array();
	json_object_array_add(w, json_object_new_string("napi_queue=defer-2,busy"));
	assert_int_equal(profile_parse_settings(&p, "t", w, &err), -1);
	if (strstr(err.message, "[napi_queue]: unknown key \"busy\"") == NULL)
		fail_msg("%s", err.message);
	json_object_put(w);
}

/* Values compare and show as their kinds do. */
static void
test_kind_ops(void **state)
{
	char buf[64];

	(void)state;
	assert_true(plan_same(PLAN_XPS, "", "f", "0000000f"));
	assert_true(plan_same(PLAN_IRQ, "", "0-3", "0,1,2,3"));
	assert_true(plan_same(PLAN_FLOW_CNT, "", "3000", "4096"));
	assert_false(plan_same(PLAN_FLOW_CNT, "", "4097", "4096"));
	assert_true(plan_same(PLAN_SYSCTL, "net.core.rps_sock_flow_entries", "30000", "32768"));
	assert_false(plan_same(PLAN_SYSCTL, "net.core.somaxconn", "30000", "32768"));
	assert_true(plan_same(PLAN_SYSCTL, "net.ipv4.tcp_rmem", "4096\t87380  6291456",
	                      "4096 87380 6291456"));
	assert_false(plan_same(PLAN_NTUPLE, "", "on", "off"));
	plan_display(PLAN_RPS, "0000000f", buf, sizeof(buf));
	assert_string_equal(buf, "0-3");
	plan_display(PLAN_FLOW_CNT, "0000000f", buf, sizeof(buf));
	assert_string_equal(buf, "0000000f");
	assert_false(plan_value_on(PLAN_RPS, "0"));
	assert_true(plan_value_on(PLAN_XPS, "1"));
	assert_false(plan_value_on(PLAN_FLOW_CNT, "0"));
	assert_true(plan_value_on(PLAN_NTUPLE, "off"));
	assert_true(plan_value_on(PLAN_SYSCTL, "0"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_entries_complete),
	    cmocka_unit_test(test_names_unique),
	    cmocka_unit_test(test_sections_are_the_files),
	    cmocka_unit_test(test_allow_agrees_with_file),
	    cmocka_unit_test(test_messages),
	    cmocka_unit_test(test_kind_ops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
