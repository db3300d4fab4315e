package node

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// hostSysctls are the host-global kernel settings kubelet sets at start-up
// (setupKernelTunables, with protectKernelDefaults off): they are not
// per network namespace, so they must be given back.
var hostSysctls = []string{
	"vm.overcommit_memory",
	"vm.panic_on_oom",
	"kernel.panic",
	"kernel.panic_on_oops",
	"kernel.keys.root_maxkeys",
	"kernel.keys.root_maxbytes",
}

// savedSysctls maps a sysctl's name to its value before the node started.
type savedSysctls map[string]string

func sysctlPath(name string) string {
	return filepath.Join("/proc/sys", strings.ReplaceAll(name, ".", "/"))
}

// saveSysctls reads the current values of hostSysctls; one that does not
// exist on this kernel is left out.
func saveSysctls() (savedSysctls, error) {
	saved := savedSysctls{}
	for _, name := range hostSysctls {
		data, err := os.ReadFile(sysctlPath(name))
		if os.IsNotExist(err) {
			continue
		} else if err != nil {
			return nil, fmt.Errorf("read sysctl %s: %w", name, err)
		}
		saved[name] = strings.TrimSpace(string(data))
	}
	return saved, nil
}

// restore writes every saved value back, reporting all that failed.
func (s savedSysctls) restore() error {
	var failed []string
	for name, value := range s {
		if err := os.WriteFile(sysctlPath(name), []byte(value), 0o644); err != nil {
			failed = append(failed, fmt.Sprintf("%s=%s: %v", name, value, err))
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("restore sysctls: %s", strings.Join(failed, "; "))
	}
	return nil
}

// changed lists the sysctls whose current value differs from the saved one.
func (s savedSysctls) changed() ([]string, error) {
	now, err := saveSysctls()
	if err != nil {
		return nil, err
	}
	var diff []string
	for name, value := range s {
		if now[name] != value {
			diff = append(diff, fmt.Sprintf("%s: %s, was %s", name, now[name], value))
		}
	}
	return diff, nil
}
