package hostdaemon

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Filesystem magic numbers (statfs(2), linux/magic.h).
const (
	ext4Magic    = 0xEF53
	xfsMagic     = 0x58465342
	overlayMagic = 0x794c7630
	btrfsMagic   = 0x9123683E
	tmpfsMagic   = 0x01021994
)

// storageDriverFor picks dockerd's storage driver for a data root:
// overlay2, which the earlier try ran kind nodes with on this machine's
// ext4; it refuses an overlayfs data root (overlay2 cannot stack on it).
func storageDriverFor(dataRoot string) (string, error) {
	var fs unix.Statfs_t
	if err := unix.Statfs(dataRoot, &fs); err != nil {
		return "", fmt.Errorf("statfs the daemon's data root %s: %w", dataRoot, err)
	}
	return driverForMagic(int64(fs.Type), dataRoot)
}

func driverForMagic(magic int64, dataRoot string) (string, error) {
	switch magic {
	case ext4Magic, xfsMagic, btrfsMagic, tmpfsMagic:
		return "overlay2", nil
	case overlayMagic:
		return "", fmt.Errorf("the daemon's data root %s is on overlayfs, where overlay2 cannot run: "+
			"choose a state directory on ext4 or xfs (--dir)", dataRoot)
	default:
		return "", fmt.Errorf("the daemon's data root %s is on a filesystem (statfs type %#x) "+
			"the rehearsal has not tried overlay2 on: choose a state directory on ext4 or xfs (--dir)", dataRoot, magic)
	}
}
