package cnpgsim

import (
	"testing"
	"time"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

func TestArchiveDir(t *testing.T) {
	for _, c := range []struct{ dest, server, want string }{
		{"s3://backups/postgres", "shop", "/r/objectstore/s3/backups/postgres/shop"},
		{"s3://backups//postgres/", "shop", "/r/objectstore/s3/backups/postgres/shop"},
		{"gs://b/../../etc", "..", "/r/objectstore/gs/b/etc/_"},
		{"/plain/path", "a b", "/r/objectstore/local/plain/path/a_b"},
		{"https://acct.blob.core.windows.net/c", "x", "/r/objectstore/https/acct.blob.core.windows.net/c/x"},
	} {
		if got := archiveDir("/r", c.dest, c.server); got != c.want {
			t.Errorf("archiveDir(%q, %q) = %s, want %s", c.dest, c.server, got, c.want)
		}
	}
}

func TestWALFileName(t *testing.T) {
	for _, c := range []struct {
		lsn  string
		tli  uint32
		want string
	}{
		{"0/2000028", 1, "000000010000000000000002"},
		{"0/2FFFFFF", 1, "000000010000000000000002"},
		{"1/A3000000", 2, "0000000200000001000000A3"},
	} {
		lsn, err := parseLSN(c.lsn)
		if err != nil {
			t.Fatal(err)
		}
		if got := walFileName(c.tli, lsn); got != c.want {
			t.Errorf("walFileName(%d, %s) = %s, want %s", c.tli, c.lsn, got, c.want)
		}
	}
	if _, err := parseLSN("nonsense"); err == nil {
		t.Error("parseLSN accepted nonsense")
	}
}

// Barman restores the newest backup that ended before the target.
func TestChooseBackup(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	list := []*backupInfo{{BackupID: "a", StoppedAt: t0}, {BackupID: "b", StoppedAt: t0.Add(time.Hour)}}
	at := func(d time.Duration) *time.Time { t := t0.Add(d); return &t }
	for _, c := range []struct {
		target *time.Time
		want   string
	}{
		{nil, "b"}, {at(-time.Second), ""}, {at(0), "a"}, {at(30 * time.Minute), "a"}, {at(2 * time.Hour), "b"},
	} {
		got := ""
		if b := chooseBackup(list, c.target); b != nil {
			got = b.BackupID
		}
		if got != c.want {
			t.Errorf("target %v: chose %q, want %q", c.target, got, c.want)
		}
	}
}

func TestParseTargetTime(t *testing.T) {
	want := time.Date(2026, 11, 30, 17, 46, 32, 23010000, time.UTC)
	for _, v := range []string{"2026-11-30T17:46:32.02301Z", "2026-11-30 17:46:32.02301+00", "2026-11-30 18:46:32.02301+01:00"} {
		got, err := parseTargetTime(&cnpgv1.BootstrapRecovery{RecoveryTarget: &cnpgv1.RecoveryTarget{TargetTime: v}})
		if err != nil || got == nil || !got.Equal(want) {
			t.Errorf("parseTargetTime(%q) = %v, %v", v, got, err)
		}
	}
	if _, err := parseTargetTime(&cnpgv1.BootstrapRecovery{RecoveryTarget: &cnpgv1.RecoveryTarget{TargetTime: "yesterday"}}); err == nil {
		t.Error("accepted a malformed target time")
	}
}
