// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#include <errno.h>
#include <string.h>

#include "output_file.h"

FILE *output_open(const char *tool, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		fprintf(stderr, "%s: %s: %s\n", tool, path, strerror(errno));
	return f;
}

int output_close(const char *tool, const char *path, FILE *f, int written)
{
	/* buffered data reaches the file only now: fclose can fail too */
	if (fclose(f) || written) {
		fprintf(stderr, "%s: writing %s failed\n", tool, path);
		return -1;
	}
	return 0;
}
