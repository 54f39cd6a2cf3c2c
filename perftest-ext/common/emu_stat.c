// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Reading mlx5emu's attribution records: record kinds and key=value fields. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "emu_stat.h"

FILE *emu_stat_open(pid_t pid)
{
	const char *dir = getenv("MLX5EMU_STAT_DIR");
	char path[PATH_MAX];

	if (!dir || !*dir) {
		errno = ENOENT;
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/%d", dir, (int)pid);
	return fopen(path, "re");
}

bool emu_stat_is(const char *line, const char *kind)
{
	size_t n = strlen(kind);

	return !strncmp(line, kind, n) && line[n] == ' ';
}

/* where key's value starts: the key after a space, followed by '=' */
static const char *value_of(const char *line, const char *key)
{
	size_t n = strlen(key);
	const char *p = line;

	while ((p = strstr(p, key))) {
		if (p > line && p[-1] == ' ' && p[n] == '=')
			return p + n + 1;
		p += n;
	}
	return NULL;
}

long long emu_stat_num(const char *line, const char *key, long long def)
{
	const char *v = value_of(line, key);

	return v ? strtoll(v, NULL, 0) : def;
}

const char *emu_stat_text(const char *line, const char *key, char *buf,
			  size_t len)
{
	const char *v = value_of(line, key);
	size_t n = v ? strcspn(v, " \n") : 0;

	if (n >= len)
		n = len - 1;
	memcpy(buf, v ? v : "", n);
	buf[n] = 0;
	return buf;
}
