package postgres

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"
)

// HostMap redirects service addresses ("shop-rw.default.svc:5432") to
// reachable ones ("127.0.0.1:41234"). It is read from a JSON object file,
// written by the CNPG stand-in, and re-read when the file changes.
type HostMap struct {
	path string

	mu      sync.Mutex
	modTime time.Time
	size    int64
	entries map[string]string
}

// NewHostMap returns a map backed by path; an empty path maps nothing.
func NewHostMap(path string) *HostMap { return &HostMap{path: path} }

// Resolve returns where to dial addr: its mapped address, or addr itself.
func (m *HostMap) Resolve(addr string) (string, error) {
	if m == nil || m.path == "" {
		return addr, nil
	}
	entries, err := m.load()
	if err != nil {
		return "", err
	}
	if to, ok := entries[addr]; ok {
		return to, nil
	}
	return addr, nil
}

// load re-reads the file when its size or modification time changed.
func (m *HostMap) load() (map[string]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	fi, err := os.Stat(m.path)
	if err != nil {
		return nil, fmt.Errorf("postgres host map: %w", err)
	}
	if m.entries != nil && fi.ModTime().Equal(m.modTime) && fi.Size() == m.size {
		return m.entries, nil
	}
	data, err := os.ReadFile(m.path)
	if err != nil {
		return nil, fmt.Errorf("postgres host map: %w", err)
	}
	entries := map[string]string{}
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, fmt.Errorf("postgres host map %s: %w", m.path, err)
	}
	m.entries, m.modTime, m.size = entries, fi.ModTime(), fi.Size()
	return entries, nil
}
