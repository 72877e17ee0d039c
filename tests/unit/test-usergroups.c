/* test-usergroups.c: a user's groups and the admin check (usergroups.c) come from the
 * databases once per user, then from what is kept: a slow NSS backend is asked once per
 * TTL, not per request; the answers are those of the databases. */
#include <grp.h>
#include <pwd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "usergroups.h"

/* root: its primary group first, asked once. */
static void
test_groups_kept(void **state)
{
	gid_t g[USERGROUPS_MAX];
	size_t n = 0;
	unsigned long before;

	(void)state;
	usergroups_flush();
	before = usergroups_lookups();
	assert_int_equal(usergroups_get(0, g, USERGROUPS_MAX, &n), 0);
	assert_true(n >= 1);
	assert_int_equal(g[0], 0);
	assert_int_equal(usergroups_lookups(), before + 1);
	for (int i = 0; i < 100; i++)
		assert_int_equal(usergroups_get(0, g, USERGROUPS_MAX, &n), 0);
	assert_int_equal(usergroups_lookups(), before + 1);
	/* A uid without a passwd entry: -1, and that answer is kept too. */
	assert_int_equal(usergroups_get(4000000000u, g, USERGROUPS_MAX, &n), -1);
	assert_int_equal(usergroups_get(4000000000u, g, USERGROUPS_MAX, &n), -1);
	assert_int_equal(usergroups_lookups(), before + 2);
	/* At most max given. */
	assert_int_equal(usergroups_get(0, g, 1, &n), 0);
	assert_int_equal(n, 1);
	/* Flushed: asked again. */
	usergroups_flush();
	assert_int_equal(usergroups_get(0, g, USERGROUPS_MAX, &n), 0);
	assert_int_equal(usergroups_lookups(), before + 3);
}

/* The admin check: root always; nobody not in group root; its gid being the group's counts
 * without asking for the user's groups. */
static void
test_admin(void **state)
{
	struct passwd *pw = getpwnam("nobody");
	unsigned long before;

	(void)state;
	if (pw == NULL)
		skip();
	usergroups_flush();
	before = usergroups_lookups();
	assert_true(usergroups_is_admin(0, 0, NULL));
	assert_int_equal(usergroups_lookups(), before);
	assert_false(usergroups_is_admin(pw->pw_uid, pw->pw_gid, "root"));
	assert_false(usergroups_is_admin(pw->pw_uid, pw->pw_gid, NULL));
	assert_false(usergroups_is_admin(pw->pw_uid, pw->pw_gid, "nm-no-such-group"));
	assert_true(usergroups_is_admin(pw->pw_uid, 0, "root"));
	/* The group's gid and nobody's groups are kept: asked again and again, no lookup. */
	before = usergroups_lookups();
	for (int i = 0; i < 50; i++)
		assert_false(usergroups_is_admin(pw->pw_uid, pw->pw_gid, "root"));
	assert_int_equal(usergroups_lookups(), before);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_groups_kept),
	    cmocka_unit_test(test_admin),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
