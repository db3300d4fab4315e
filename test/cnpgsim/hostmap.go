package cnpgsim

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"k8s.io/client-go/tools/cache"
)

// hostMap is the published mapping from the addresses clients would dial
// inside Kubernetes ("shop-rw.default.svc:5432") to the loopback addresses
// of the servers ("127.0.0.1:41234").
type hostMap struct {
	path string

	mu      sync.Mutex
	byOwner map[cache.ObjectName]map[string]string
	written []byte
}

func newHostMap(path string) *hostMap {
	return &hostMap{path: path, byOwner: map[cache.ObjectName]map[string]string{}}
}

// set replaces one Cluster's entries (nil removes them) and rewrites the
// file if the whole map changed.
func (h *hostMap) set(owner cache.ObjectName, entries map[string]string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(entries) == 0 {
		delete(h.byOwner, owner)
	} else {
		h.byOwner[owner] = entries
	}
	return h.flushLocked()
}

// lookup returns the loopback address for "host:port", if mapped.
func (h *hostMap) lookup(hostPort string) (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, entries := range h.byOwner {
		if addr, ok := entries[hostPort]; ok {
			return addr, true
		}
	}
	return "", false
}

func (h *hostMap) snapshot() map[string]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	all := map[string]string{}
	for _, entries := range h.byOwner {
		maps.Copy(all, entries)
	}
	return all
}

func (h *hostMap) flushLocked() error {
	if h.path == "" {
		return nil
	}
	all := map[string]string{}
	for _, entries := range h.byOwner {
		maps.Copy(all, entries)
	}
	// json.Marshal sorts map keys: equal maps give equal bytes.
	data, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return fmt.Errorf("encode host map: %w", err)
	}
	data = append(data, '\n')
	if h.written != nil && string(data) == string(h.written) {
		return nil
	}
	if err := writeAtomically(h.path, data); err != nil {
		return err
	}
	h.written = data
	return nil
}

// remove deletes the file: its addresses die with the servers.
func (h *hostMap) remove() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.path == "" || h.written == nil {
		return nil
	}
	h.written = nil
	if err := os.Remove(h.path); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("remove host map: %w", err)
	}
	return nil
}

// writeAtomically writes through a temporary file and a rename, so a
// reader never sees half a file.
func writeAtomically(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create directory for %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return fmt.Errorf("create temp file for %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("chmod %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("rename to %s: %w", path, err)
	}
	return nil
}

// Addr is the loopback address serving the Cluster's Services
// ("127.0.0.1:41234"), or "" if the Simulator has no server for it.
func (s *Simulator) Addr(namespace, name string) string {
	inst := s.instance(cache.ObjectName{Namespace: namespace, Name: name})
	if inst == nil {
		return ""
	}
	return inst.backend.srv.addr()
}

// HostMap returns the current host map, as the file would hold it.
func (s *Simulator) HostMap() map[string]string { return s.hostMap.snapshot() }

// Resolve maps "host:port" (for example "shop-rw.default.svc:5432") to the
// loopback address serving it; tests use it as a dialer's address rewrite.
func (s *Simulator) Resolve(hostPort string) (string, bool) {
	return s.hostMap.lookup(strings.ToLower(hostPort))
}
