// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The result files (--json, --csv): closed and checked with one message. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int output_check(const char *tool, const char *path)
{
	struct stat st;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	if (fd >= 0) {
		close(fd);
		unlink(path);
		return 0;
	}
	if (errno == EEXIST && !stat(path, &st)) {
		if (S_ISDIR(st.st_mode))
			errno = EISDIR;
		else if (!access(path, W_OK))
			return 0;
	}
	fprintf(stderr, "%s: %s: %s\n", tool, path, strerror(errno));
	return -1;
}
