// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * /sys as the emulated process sees it: programs that read
 * /sys/class/infiniband/... by its literal path (UCX, pyverbs' tests) get
 * the launcher's tree ($SYSFS_PATH). Only the emulated class directories
 * and the PCI functions of the emulated HCAs are shadowed; the rest of
 * /sys stays the host's.
 */
#include <stdlib.h>
#include <string.h>

#include "verbs/mlx5emu.h"

static const char *const shadowed[] = {
	"/sys/class/infiniband",
	"/sys/class/infiniband_verbs",
	"/sys/" EMU_SYSFS_PCI_PARENT "/0000:81:00.",
};

static char root[PATH_MAX];
static size_t root_len;

static void init_root(void)
{
	const char *v = getenv("SYSFS_PATH");

	/*
	 * only a tree of our own (SYSFS_PATH=/sys means the host's), longer
	 * than "/sys" so that unmapping shortens a path
	 */
	if (v && *v == '/' && strcmp(v, "/sys") && strlen(v) > 4 &&
	    strlen(v) < sizeof(root)) {
		strcpy(root, v);
		root_len = strlen(root);
		while (root_len > 1 && root[root_len - 1] == '/')
			root[--root_len] = 0;
	}
}

static bool have_root(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, init_root);
	return root_len;
}

/* "/sys/class/infiniband" matches itself and what is below it */
static bool is_shadowed(const char *path)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(shadowed); i++) {
		size_t n = strlen(shadowed[i]);

		if (strncmp(path, shadowed[i], n))
			continue;
		if (shadowed[i][n - 1] == '.' || !path[n] || path[n] == '/')
			return true;
	}
	return false;
}

const char *emu_sysfs_path(const char *path, char *buf, size_t len)
{
	if (!path || strncmp(path, "/sys/", 5) || !is_shadowed(path) ||
	    !have_root())
		return path;
	/* "/sys" + rest -> root + rest */
	if ((size_t)snprintf(buf, len, "%s%s", root, path + 4) >= len)
		return path;
	return buf;
}

void emu_sysfs_unmap(char *path)
{
	if (!path || !have_root() || strncmp(path, root, root_len) ||
	    (path[root_len] && path[root_len] != '/'))
		return;
	memmove(path + 4, path + root_len, strlen(path + root_len) + 1);
	memcpy(path, "/sys", 4);
}
