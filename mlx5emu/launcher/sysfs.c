// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The sysfs tree of the emulated devices, laid out as the kernel's: each
 * HCA is a PCI function under devices/ holding infiniband/mlx5_N and
 * infiniband_verbs/uverbsN, which class/ links to. libibverbs reads it
 * through SYSFS_PATH; the interposer shows it at /sys as well.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/model.h"

static int mkdirs(const char *path)
{
	char tmp[4096];
	char *p;

	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

static int __attribute__((format(printf, 3, 4)))
put(const char *dir, const char *name, const char *fmt, ...)
{
	char path[4096];
	va_list ap;
	FILE *f;
	int ret;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "w");
	if (!f)
		return -errno;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	ret = fclose(f) ? -errno : 0;
	return ret;
}

static void guid_str(char *buf, size_t len, uint64_t guid)
{
	snprintf(buf, len, "%04x:%04x:%04x:%04x", (unsigned int)(guid >> 48),
		 (unsigned int)(guid >> 32) & 0xffff,
		 (unsigned int)(guid >> 16) & 0xffff,
		 (unsigned int)guid & 0xffff);
}

static int write_port(const char *ibdev, const struct emu_model *m,
		      unsigned int host, unsigned int dev, unsigned int nports,
		      unsigned int port)
{
	uint64_t guid = emu_node_guid(host, dev) + port;
	char dir[4096], sub[4200], name[16];
	unsigned int i;
	int ret;

	if (snprintf(dir, sizeof(dir), "%s/ports/%u", ibdev, port) >=
	    (int)sizeof(dir))
		return -ENAMETOOLONG;
	snprintf(sub, sizeof(sub), "%s/gids", dir);
	ret = mkdirs(sub);
	if (!ret) {
		snprintf(sub, sizeof(sub), "%s/pkeys", dir);
		ret = mkdirs(sub);
	}
	if (ret)
		return ret;

	/* IB link layer: no gid_attrs directory means "IB/RoCE v1" GIDs */
	snprintf(sub, sizeof(sub), "%s/gids", dir);
	ret = put(sub, "0", "fe80:0000:0000:0000:%04x:%04x:%04x:%04x\n",
		  (unsigned int)(guid >> 48),
		  (unsigned int)(guid >> 32) & 0xffff,
		  (unsigned int)(guid >> 16) & 0xffff,
		  (unsigned int)guid & 0xffff);
	/* the rest of the table is there, empty, as on an HCA */
	for (i = 1; !ret && i < EMU_GID_TBL_LEN; i++) {
		snprintf(name, sizeof(name), "%u", i);
		ret = put(sub, name,
			  "0000:0000:0000:0000:0000:0000:0000:0000\n");
	}
	snprintf(sub, sizeof(sub), "%s/pkeys", dir);
	ret = ret ?: put(sub, "0", "0xffff\n");
	ret = ret ?: put(dir, "state", "4: ACTIVE\n");
	ret = ret ?: put(dir, "phys_state", "5: LinkUp\n");
	ret = ret ?: put(dir, "link_layer", "InfiniBand\n");
	ret = ret ?: put(dir, "rate", "%s\n", m->rate);
	ret = ret   ?:
		      put(dir, "lid", "0x%x\n",
			  emu_port_lid(host, dev, nports, port));
	ret = ret ?: put(dir, "sm_lid", "0x1\n");
	ret = ret ?: put(dir, "lid_mask_count", "0\n");
	ret = ret ?: put(dir, "cap_mask", "0x2651e848\n");
	return ret;
}

/* class/<cls>/<name> -> ../../<devpath>/<cls>/<name>, as the kernel links */
static int link_class(const char *root, const char *devpath, const char *cls,
		      const char *name)
{
	char target[4096], link[4096];

	snprintf(target, sizeof(target), "../../%s/%s/%s", devpath, cls, name);
	snprintf(link, sizeof(link), "%s/class/%s/%s", root, cls, name);
	if (symlink(target, link) && errno != EEXIST)
		return -errno;
	return 0;
}

static int write_pci(const char *pci, const struct emu_model *m)
{
	int ret;

	/* libibverbs matches the provider with %08X: upper-case hex */
	ret = put(pci, "modalias", "pci:v%08Xd%08Xsv%08Xsd%08Xbc02sc07i00\n",
		  EMU_PCI_VENDOR, m->pci_device, EMU_PCI_VENDOR, m->pci_subsys);
	ret = ret ?: put(pci, "vendor", "0x%04x\n", EMU_PCI_VENDOR);
	ret = ret ?: put(pci, "device", "0x%04x\n", m->pci_device);
	ret = ret ?: put(pci, "subsystem_vendor", "0x%04x\n", EMU_PCI_VENDOR);
	ret = ret ?: put(pci, "subsystem_device", "0x%04x\n", m->pci_subsys);
	ret = ret ?: put(pci, "class", "0x020700\n");
	ret = ret ?: put(pci, "numa_node", "-1\n");
	/* a PCIe Gen3 x16 slot, where UCX reads the PCI bandwidth */
	ret = ret ?: put(pci, "current_link_speed", "8.0 GT/s PCIe\n");
	ret = ret ?: put(pci, "current_link_width", "16\n");
	ret = ret ?: put(pci, "max_link_speed", "8.0 GT/s PCIe\n");
	ret = ret ?: put(pci, "max_link_width", "16\n");
	return ret;
}

static int write_device(const char *root, const struct emu_model *m,
			unsigned int host, unsigned int dev,
			unsigned int nports)
{
	char devpath[256], pci[4096], uverbs[4200], ibdev[4200], guid[32];
	char link[4300];
	unsigned int port;
	int ret;

	snprintf(devpath, sizeof(devpath), "%s" EMU_SYSFS_PCI_FMT,
		 EMU_SYSFS_PCI_PARENT, dev);
	snprintf(pci, sizeof(pci), "%s/%s", root, devpath);
	snprintf(uverbs, sizeof(uverbs), "%s/infiniband_verbs/uverbs%u", pci,
		 dev);
	snprintf(ibdev, sizeof(ibdev), "%s/infiniband/mlx5_%u", pci, dev);
	ret = mkdirs(uverbs);
	ret = ret ?: mkdirs(ibdev);
	ret = ret ?: write_pci(pci, m);
	if (ret)
		return ret;
	/* both class devices point back at their parent, the PCI function */
	snprintf(link, sizeof(link), "%s/device", uverbs);
	if (symlink("../../", link))
		return -errno;
	snprintf(link, sizeof(link), "%s/device", ibdev);
	if (symlink("../../", link))
		return -errno;
	ret = link_class(root, devpath, "infiniband_verbs",
			 strrchr(uverbs, '/') + 1);
	ret = ret   ?:
		      link_class(root, devpath, "infiniband",
				 strrchr(ibdev, '/') + 1);
	if (ret)
		return ret;

	ret = put(uverbs, "ibdev", "mlx5_%u\n", dev);
	ret = ret   ?:
		      put(uverbs, "dev", "%u:%u\n", EMU_CDEV_MAJOR,
			  EMU_CDEV_MINOR_BASE + dev);
	/* the mlx5 provider ABI, not the uverbs one */
	ret = ret ?: put(uverbs, "abi_version", "%u\n", 1);

	guid_str(guid, sizeof(guid), emu_node_guid(host, dev));
	ret = ret ?: put(ibdev, "node_type", "1: CA\n");
	ret = ret ?: put(ibdev, "node_guid", "%s\n", guid);
	ret = ret ?: put(ibdev, "sys_image_guid", "%s\n", guid);
	ret = ret ?: put(ibdev, "node_desc", "mlx5emu %s\n", m->desc);
	ret = ret   ?:
		      put(ibdev, "fw_ver", "%u.%u.%04u\n", m->fw_major,
			  m->fw_minor, m->fw_sub);
	ret = ret ?: put(ibdev, "hca_type", "%s\n", m->hca_type);
	ret = ret ?: put(ibdev, "hw_rev", "0x0\n");
	ret = ret ?: put(ibdev, "board_id", "%s\n", m->board_id);
	for (port = 1; !ret && port <= nports; port++)
		ret = write_port(ibdev, m, host, dev, nports, port);
	return ret;
}

int emu_sysfs_write(const char *root, const struct emu_model *model,
		    unsigned int host, unsigned int ndevices,
		    unsigned int nports)
{
	char dir[4096];
	unsigned int i;
	int ret;

	snprintf(dir, sizeof(dir), "%s/class/infiniband", root);
	ret = mkdirs(dir);
	snprintf(dir, sizeof(dir), "%s/class/infiniband_verbs", root);
	ret = ret ?: mkdirs(dir);
	/* uverbs ABI 6 selects the modern command layouts */
	ret = ret ?: put(dir, "abi_version", "6\n");
	for (i = 0; !ret && i < ndevices; i++)
		ret = write_device(root, model, host, i, nports);
	return ret;
}
