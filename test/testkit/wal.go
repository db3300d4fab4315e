package testkit

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// CloseSegment ends a WAL segment with something in it, so that Postgres
// hands it to archive_command, and returns its name when it knows it.
type CloseSegment func(ctx context.Context, q Query) (string, error)

// SwitchSegment writes a row and switches WAL; it needs the superuser
// (pg_switch_wal). The row matters: a switch out of an empty segment does
// nothing, and nothing would reach the archiver.
func SwitchSegment(ctx context.Context, q Query) (string, error) {
	for _, sql := range []string{"CREATE TABLE IF NOT EXISTS wal_nudge (at timestamptz)", "INSERT INTO wal_nudge VALUES (now())"} {
		if _, err := q(ctx, sql); err != nil {
			return "", fmt.Errorf("write a row before switching WAL: %w", err)
		}
	}
	wal, err := q(ctx, "SELECT pg_walfile_name(pg_switch_wal())")
	if err != nil {
		return "", fmt.Errorf("switch WAL: %w", err)
	}
	return wal, nil
}

// FillSegment writes more than a WAL segment (about 25 MB) into a table
// of its own, for a role that may create a table but not switch WAL (a
// database's admin): a full segment is handed to archiving as a switched
// one is. Its name is not known.
func FillSegment(ctx context.Context, q Query) (string, error) {
	for _, sql := range []string{
		"CREATE TABLE IF NOT EXISTS wal_filler (g int, pad text)",
		"INSERT INTO wal_filler SELECT g, repeat('x', 900) FROM generate_series(1, 25000) AS g",
	} {
		if _, err := q(ctx, sql); err != nil {
			return "", fmt.Errorf("fill a WAL segment: %w", err)
		}
	}
	return "", nil
}

// Pace is how the archiver is watched: its statistics are read every
// Poll, and the whole wait ends with an error after Timeout. Each tier
// passes its own (the stand-in archives in milliseconds, the real
// plugin's sidecar in seconds).
type Pace struct {
	Poll, Timeout time.Duration
}

// CloseSegmentsUntilRefused closes WAL segments until Postgres counts a
// failed archive (pg_stat_archiver.failed_count rises), and returns the
// name of the last segment closed ("" when closeSegment does not know
// it). A broken object store may be noticed late (the stand-in reads the
// credentials Secret every 2 s, the plugin's sidecar may hold the old one
// for a moment), so a segment closed first can still be archived: the
// next is closed only once the
// archiver has dealt with the last one (archived or failed count moved),
// so no segment piles up behind one not yet tried, and at most one per
// poll.
func CloseSegmentsUntilRefused(ctx context.Context, q Query, closeSegment CloseSegment, pace Pace) (string, error) {
	start, err := archiverCounts(ctx, q)
	if err != nil {
		return "", err
	}
	last := start
	wal, err := closeSegment(ctx, q)
	if err != nil {
		return "", err
	}
	var seen archiverStats
	err = wait.PollUntilContextTimeout(ctx, pace.Poll, pace.Timeout, false, func(ctx context.Context) (bool, error) {
		if seen, err = archiverCounts(ctx, q); err != nil {
			return false, err
		}
		if seen.failed > start.failed {
			return true, nil
		}
		if seen == last {
			return false, nil // the archiver has not tried the last segment yet
		}
		last = seen
		if wal, err = closeSegment(ctx, q); err != nil {
			return false, err
		}
		return false, nil
	})
	if err != nil {
		return "", fmt.Errorf("no WAL segment refused by the archiver within %s (archived %d, failed %d since the start): %w",
			pace.Timeout, seen.archived-start.archived, seen.failed-start.failed, err)
	}
	return wal, nil
}

// archiverStats are pg_stat_archiver's counts.
type archiverStats struct{ archived, failed int64 }

func archiverCounts(ctx context.Context, q Query) (archiverStats, error) {
	out, err := q(ctx, "SELECT archived_count::text || ' ' || failed_count::text FROM pg_stat_archiver")
	if err != nil {
		return archiverStats{}, fmt.Errorf("read pg_stat_archiver: %w", err)
	}
	var s archiverStats
	if _, err := fmt.Sscan(out, &s.archived, &s.failed); err != nil {
		return archiverStats{}, fmt.Errorf("read pg_stat_archiver %q: %w", out, err)
	}
	return s, nil
}

// WALArchived reports whether WAL segment wal of cluster in ns has
// reached the tier's object store, and what it saw, for a message; q is
// a superuser's session on the cluster. The stand-in looks for the file
// in its store's folder; the real tier asks Postgres's archiver
// (ArchiverReported), since its store is behind the plugin's sidecar.
type WALArchived func(ctx context.Context, ns, cluster string, q Query, wal string) (bool, string, error)

// SwitchWAL closes the current WAL segment on cluster's primary
// (SwitchSegment), as the superuser of its <cluster>-superuser Secret,
// and waits until the tier's WALArchived finds it archived (a minute on
// the stand-in).
func (k Kit) SwitchWAL(t testing.TB, ns, cluster string) {
	t.Helper()
	if k.WALArchived == nil {
		t.Fatal("this tier's kit has no WALArchived")
	}
	q := Conn(k.ConnectAs(t, ns, cluster, "postgres", cluster+"-superuser"))
	wal, err := SwitchSegment(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	k.Eventually(t, k.scaled(time.Minute), "WAL "+wal+" archived", func(ctx context.Context) (bool, string, error) {
		return k.WALArchived(ctx, ns, cluster, q, wal)
	})
}

// ArchiverReported is WALArchived as Postgres's archiver reports it
// (pg_stat_archiver): wal is archived once the last archived segment
// sorts at or after it, since the names of one timeline's segments sort
// in write order.
func ArchiverReported(ctx context.Context, _, _ string, q Query, wal string) (bool, string, error) {
	out, err := q(ctx, "SELECT coalesce(last_archived_wal, '') || ' ' || coalesce(last_failed_wal, '') FROM pg_stat_archiver")
	if err != nil {
		return false, "", fmt.Errorf("read pg_stat_archiver: %w", err)
	}
	last, failed, _ := strings.Cut(out, " ")
	return last >= wal, fmt.Sprintf("last archived %q, last failed %q", last, failed), nil
}
