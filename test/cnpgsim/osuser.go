package cnpgsim

import (
	"fmt"
	"os"
	"os/user"
	"strconv"
	"syscall"
)

// osUser is who the Postgres processes run as. Postgres refuses to run as
// root, and tests and CI run as root, so root hands the servers to the
// postgres OS user; anyone else runs them as themselves.
type osUser struct {
	uid, gid int
	// client is this process's user name, which pg_ident.conf maps to the
	// postgres role for peer authentication over the Unix socket.
	client   string
	switchTo bool
}

func lookupOSUser() (*osUser, error) {
	me, err := user.Current()
	if err != nil {
		return nil, fmt.Errorf("look up current user: %w", err)
	}
	if os.Getuid() != 0 {
		return &osUser{uid: os.Getuid(), gid: os.Getgid(), client: me.Username}, nil
	}
	pg, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("look up the postgres OS user (install Debian's postgresql package): %w", err)
	}
	uid, err := strconv.Atoi(pg.Uid)
	if err != nil {
		return nil, fmt.Errorf("postgres uid %q: %w", pg.Uid, err)
	}
	gid, err := strconv.Atoi(pg.Gid)
	if err != nil {
		return nil, fmt.Errorf("postgres gid %q: %w", pg.Gid, err)
	}
	return &osUser{uid: uid, gid: gid, client: me.Username, switchTo: true}, nil
}

// procAttr makes a child run as the user, in its own process group (so a
// terminal's Ctrl-C reaches only us and we shut servers down in order), and
// die if we die without cleaning up.
func (u *osUser) procAttr() *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if u.switchTo {
		attr.Credential = &syscall.Credential{Uid: uint32(u.uid), Gid: uint32(u.gid)}
	}
	return attr
}

func (u *osUser) chown(path string) error {
	if !u.switchTo {
		return nil
	}
	if err := os.Chown(path, u.uid, u.gid); err != nil {
		return fmt.Errorf("chown %s: %w", path, err)
	}
	return nil
}

// writeFile writes a file that the server reads, owned by the run-as user.
// It writes a temporary file and renames it into place: Postgres handles a
// reload signal asynchronously, and a reload that read a half-written
// pg_ident.conf would break peer authentication until the next reload.
func (u *osUser) writeFile(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := u.chown(tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("replace %s: %w", path, err)
	}
	return nil
}
