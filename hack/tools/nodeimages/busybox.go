package nodeimages

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"strings"
)

// hostBusybox is where Debian's busybox-static puts its binary.
const hostBusybox = "/bin/busybox"

// busybox adds the host's static busybox as /usr/bin/busybox and a link
// to it for every applet (sh, cp, and the rest), all in /usr/bin: the
// image's /bin is a link there. A dynamic busybox (Debian's "busybox"
// package) is refused: the image has libc, but not every library it wants.
func (r *rootFS) busybox(ctx context.Context) error {
	if err := requireStatic(hostBusybox); err != nil {
		return fmt.Errorf("%w: install busybox-static (make node-packages)", err)
	}
	return r.busyboxFrom(ctx, hostBusybox)
}

// busyboxFrom is busybox with the static binary at src (an unpacked
// busybox-static of another release runs on the host as well).
func (r *rootFS) busyboxFrom(ctx context.Context, src string) error {
	if err := requireStatic(src); err != nil {
		return err
	}
	bin, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	r.File("/usr/bin/busybox", 0o755, bin)
	out, err := exec.CommandContext(ctx, src, "--list-full").Output()
	if err != nil {
		return fmt.Errorf("busybox --list-full: %w", err)
	}
	for _, applet := range strings.Fields(string(out)) {
		p := "/usr/bin/" + path.Base(applet)
		if !r.Has(p) {
			r.Symlink(p, "busybox")
		}
	}
	if !r.Has("/usr/bin/sh") {
		return fmt.Errorf("busybox has no sh applet")
	}
	return nil
}
