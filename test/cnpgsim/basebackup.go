package cnpgsim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// walSegmentSize is initdb's default, which the stand-in never changes.
const walSegmentSize = 16 << 20

// baseBackupTimeout bounds pg_basebackup and the wait for its last WAL
// file to reach the archive.
const baseBackupTimeout = 5 * time.Minute

// backupInfo is what the stand-in keeps next to each base backup
// (base/<id>/backup.json), as barman-cloud keeps backup.info: recovery
// and the recovery window are computed from these files alone.
type backupInfo struct {
	BackupID   string    `json:"backupId"`
	BackupName string    `json:"backupName"`
	Timeline   uint32    `json:"timeline"`
	BeginLSN   string    `json:"beginLSN"`
	EndLSN     string    `json:"endLSN"`
	BeginWal   string    `json:"beginWal"`
	EndWal     string    `json:"endWal"`
	StartedAt  time.Time `json:"startedAt"`
	StoppedAt  time.Time `json:"stoppedAt"`
}

func (a *archive) backupDir(id string) string { return filepath.Join(a.baseDir(), id) }

// takeBaseBackup runs pg_basebackup (as the postgres OS user, over the
// Unix socket) into base/<id>/data, WAL left to the archive as barman
// does, then waits until the backup's last WAL file has been archived:
// before that the backup cannot be restored.
func (s *Simulator) takeBaseBackup(ctx context.Context, srv *server, a *archive, name string) (*backupInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, baseBackupTimeout)
	defer cancel()
	started := time.Now().UTC()
	id, err := a.reserveBackupID(started, s.owner)
	if err != nil {
		return nil, err
	}
	dataDir := filepath.Join(a.backupDir(id), "data")
	cmd := exec.CommandContext(ctx, filepath.Join(s.opts.PostgresBinDir, "pg_basebackup"),
		"-h", srv.sockDir(), "-p", strconv.Itoa(srv.port), "-U", "postgres", "--no-password",
		"-D", dataDir, "-Fp", "-X", "none", "-c", "fast", "--no-sync", "-l", "cnpgsim "+name)
	cmd.Dir = a.dir
	cmd.SysProcAttr = s.owner.procAttr()
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LANG=C"}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pg_basebackup: %w: %s", err, strings.TrimSpace(string(out)))
	}
	info, err := readManifestRange(filepath.Join(dataDir, "backup_manifest"))
	if err != nil {
		return nil, err
	}
	info.BackupID, info.BackupName, info.StartedAt = id, name, started
	if err := a.waitArchived(ctx, info.EndWal); err != nil {
		return nil, err
	}
	info.StoppedAt = time.Now().UTC()
	if err := a.writeBackupInfo(info, s.owner); err != nil {
		return nil, err
	}
	return info, nil
}

// reserveBackupID picks barman's ID format (the start time), made unique
// by a suffix when two backups start in the same second.
func (a *archive) reserveBackupID(t time.Time, owner *osUser) (string, error) {
	base := t.Format("20060102T150405")
	for i := 0; i < 100; i++ {
		id := base
		if i > 0 {
			id = fmt.Sprintf("%s-%d", base, i)
		}
		err := os.Mkdir(a.backupDir(id), 0o700)
		if os.IsExist(err) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("create backup folder: %w", err)
		}
		return id, owner.chown(a.backupDir(id))
	}
	return "", fmt.Errorf("no free backup ID for %s", base)
}

func (a *archive) waitArchived(ctx context.Context, wal string) error {
	path := filepath.Join(a.walDir(), wal)
	for {
		if _, err := os.Stat(path); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("WAL file %s of the backup was not archived: %w", wal, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (a *archive) writeBackupInfo(info *backupInfo, owner *osUser) error {
	data, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return fmt.Errorf("encode backup.json: %w", err)
	}
	return owner.writeFile(filepath.Join(a.backupDir(info.BackupID), "backup.json"), data)
}

// backups lists the completed base backups (those with backup.json), the
// oldest first.
func (a *archive) backups() ([]*backupInfo, error) {
	entries, err := os.ReadDir(a.baseDir())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list backups: %w", err)
	}
	var list []*backupInfo
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(a.baseDir(), e.Name(), "backup.json"))
		if err != nil {
			continue // in progress or failed
		}
		info := &backupInfo{}
		if err := json.Unmarshal(data, info); err != nil {
			return nil, fmt.Errorf("read backup %s: %w", e.Name(), err)
		}
		list = append(list, info)
	}
	slices.SortFunc(list, func(x, y *backupInfo) int { return x.StoppedAt.Compare(y.StoppedAt) })
	return list, nil
}

// readManifestRange reads the WAL range of a backup from its manifest.
func readManifestRange(path string) (*backupInfo, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read backup manifest: %w", err)
	}
	var m struct {
		WALRanges []struct {
			Timeline uint32 `json:"Timeline"`
			StartLSN string `json:"Start-LSN"`
			EndLSN   string `json:"End-LSN"`
		} `json:"WAL-Ranges"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("parse backup manifest: %w", err)
	}
	if len(m.WALRanges) == 0 {
		return nil, errors.New("backup manifest has no WAL range")
	}
	r := m.WALRanges[len(m.WALRanges)-1]
	start, err := parseLSN(r.StartLSN)
	if err != nil {
		return nil, err
	}
	end, err := parseLSN(r.EndLSN)
	if err != nil {
		return nil, err
	}
	return &backupInfo{
		Timeline: r.Timeline, BeginLSN: r.StartLSN, EndLSN: r.EndLSN,
		BeginWal: walFileName(r.Timeline, start),
		// The backup ends with the record just before endLSN, which is in
		// the previous segment when endLSN sits on a boundary (as
		// pg_walfile_name computes it).
		EndWal: walFileName(r.Timeline, end-1),
	}, nil
}

// parseLSN reads Postgres's "X/Y" notation.
func parseLSN(s string) (uint64, error) {
	hi, lo, ok := strings.Cut(s, "/")
	if !ok {
		return 0, fmt.Errorf("malformed LSN %q", s)
	}
	h, err := strconv.ParseUint(hi, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("malformed LSN %q: %w", s, err)
	}
	l, err := strconv.ParseUint(lo, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("malformed LSN %q: %w", s, err)
	}
	return h<<32 | l, nil
}

// walFileName is the name of the segment holding lsn on timeline tli.
func walFileName(tli uint32, lsn uint64) string {
	const perID = (1 << 32) / walSegmentSize
	seg := lsn / walSegmentSize
	return fmt.Sprintf("%08X%08X%08X", tli, seg/perID, seg%perID)
}
