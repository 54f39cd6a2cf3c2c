/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Emulated mlx5 device: the "kernel side" of /dev/infiniband/uverbsN.
 * What the control path's files include (rxe.h's job):
 *   base/emu_util.h    list, id table, container_of, ARRAY_SIZE
 *   base/emu_param.h   limits and the configuration (emu_cfg)
 *   seam/emu_verbs.h   the object model: device, context, uobjects
 *   emu_loc.h          cross-file prototypes, one block per file, and
 *                      the base/ headers the control path uses
 *   seam/emu_nic.h     the seam to the software NIC and the fabric
 */
#ifndef MLX5EMU_H
#define MLX5EMU_H

#include "base/emu_util.h"
#include "base/emu_param.h"
#include "seam/emu_verbs.h"
#include "emu_loc.h"
#include "seam/emu_nic.h"

#endif
