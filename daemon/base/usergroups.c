/* usergroups.c: a user's groups, kept per uid for a short time (usergroups.h). */
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "usergroups.h"

struct slot {
	bool used, found;
	uid_t uid;
	long long at_ms; /* when it was looked up (CLOCK_MONOTONIC) */
	size_t n;
	gid_t groups[USERGROUPS_MAX];
};

/* What the local files looked like when the cache was filled. */
struct files_id {
	dev_t dev[2];
	ino_t ino[2];
	off_t size[2];
	struct timespec mtime[2];
};

static struct {
	struct slot slots[USERGROUPS_SLOTS];
	struct files_id files;
	bool have_files;
	/* The admin group's gid, by name. */
	char admin_name[64];
	bool admin_found;
	gid_t admin_gid;
	long long admin_at_ms;
} ug;

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
files_now(struct files_id *f)
{
	static const char *const paths[2] = {"/etc/passwd", "/etc/group"};

	memset(f, 0, sizeof(*f));
	for (int i = 0; i < 2; i++) {
		struct stat st;
		if (stat(paths[i], &st) == 0) {
			f->dev[i] = st.st_dev;
			f->ino[i] = st.st_ino;
			f->size[i] = st.st_size;
			f->mtime[i] = st.st_mtim;
		}
	}
}

static unsigned long nlookups; /* kept across flushes */

void
usergroups_flush(void)
{
	memset(&ug, 0, sizeof(ug));
}

unsigned long
usergroups_lookups(void)
{
	return nlookups;
}

/* Drop everything when the local files changed since the cache was filled. */
static void
check_files(void)
{
	struct files_id f;

	files_now(&f);
	if (ug.have_files && memcmp(&f, &ug.files, sizeof(f)) == 0)
		return;
	usergroups_flush();
	ug.files = f;
	ug.have_files = true;
}

static bool
fresh(long long at_ms, long long now)
{
	return now - at_ms < USERGROUPS_TTL_MS;
}

/* uid's slot, looked up again when stale. */
static const struct slot *
lookup(uid_t uid)
{
	long long now = now_ms();
	struct slot *s = NULL, *oldest = &ug.slots[0];
	struct passwd *pw;
	gid_t buf[USERGROUPS_MAX];
	int n = USERGROUPS_MAX;

	check_files();
	for (size_t i = 0; i < USERGROUPS_SLOTS; i++) {
		struct slot *x = &ug.slots[i];
		if (x->used && x->uid == uid) {
			s = x;
			break;
		}
		if (!x->used || (oldest->used && x->at_ms < oldest->at_ms))
			oldest = x;
	}
	if (s != NULL && fresh(s->at_ms, now))
		return s;
	if (s == NULL)
		s = oldest;
	memset(s, 0, sizeof(*s));
	s->used = true;
	s->uid = uid;
	s->at_ms = now;
	nlookups++;
	if ((pw = getpwuid(uid)) == NULL)
		return s;
	s->found = true;
	s->groups[0] = pw->pw_gid;
	s->n = 1;
	if (getgrouplist(pw->pw_name, pw->pw_gid, buf, &n) < 0)
		n = USERGROUPS_MAX; /* more than kept: the first ones */
	for (int i = 0; i < n; i++)
		if (buf[i] != pw->pw_gid && s->n < USERGROUPS_MAX)
			s->groups[s->n++] = buf[i];
	return s;
}

int
usergroups_get(uid_t uid, gid_t *groups, size_t max, size_t *n)
{
	const struct slot *s = lookup(uid);

	if (!s->found)
		return -1;
	*n = s->n < max ? s->n : max;
	memcpy(groups, s->groups, *n * sizeof(*groups));
	return 0;
}

/* The admin group's gid. false when there is no such group. */
static bool
admin_gid(const char *name, gid_t *gid)
{
	long long now = now_ms();
	struct group *gr;

	check_files();
	if (strlen(name) >= sizeof(ug.admin_name))
		return false;
	if (ug.admin_at_ms == 0 || strcmp(ug.admin_name, name) != 0 ||
	    !fresh(ug.admin_at_ms, now)) {
		snprintf(ug.admin_name, sizeof(ug.admin_name), "%s", name);
		ug.admin_at_ms = now ? now : 1;
		nlookups++;
		ug.admin_found = (gr = getgrnam(name)) != NULL;
		if (ug.admin_found)
			ug.admin_gid = gr->gr_gid;
	}
	*gid = ug.admin_gid;
	return ug.admin_found;
}

bool
usergroups_is_admin(uid_t uid, gid_t gid, const char *admin_group)
{
	const struct slot *s;
	gid_t ag;

	if (uid == 0)
		return true;
	if (admin_group == NULL || !admin_gid(admin_group, &ag))
		return false;
	if (gid == ag)
		return true;
	s = lookup(uid);
	for (size_t i = 0; i < s->n; i++)
		if (s->groups[i] == ag)
			return true;
	return false;
}
