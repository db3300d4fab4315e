package testkit

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// fakeArchiver is Postgres's archiver as the kit sees it: each closed
// segment is archived until refuseFrom segments were closed, then
// refused; it answers only the kit's two statements.
type fakeArchiver struct {
	closed, refuseFrom int
	archived, failed   int64
}

func (f *fakeArchiver) query(_ context.Context, sql string) (string, error) {
	if !strings.Contains(sql, "pg_stat_archiver") {
		return "", fmt.Errorf("unexpected statement %q", sql)
	}
	return fmt.Sprintf("%d %d", f.archived, f.failed), nil
}

// closeSegment closes a segment, which the archiver deals with at once.
func (f *fakeArchiver) closeSegment(context.Context, Query) (string, error) {
	f.closed++
	if f.closed >= f.refuseFrom {
		f.failed++
	} else {
		f.archived++
	}
	return fmt.Sprintf("%024d", f.closed), nil
}

func TestCloseSegmentsUntilRefusedStopsAtTheFirstRefusal(t *testing.T) {
	f := &fakeArchiver{refuseFrom: 3, archived: 7}
	wal, err := CloseSegmentsUntilRefused(t.Context(), f.query, f.closeSegment, Pace{Poll: time.Millisecond, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if f.closed != 3 || wal != fmt.Sprintf("%024d", 3) {
		t.Errorf("closed %d segments, returned %q: want 3, the refused one last", f.closed, wal)
	}
}

// A segment the archiver has not tried yet is not followed by another:
// nothing piles up behind it, and the wait ends at its deadline.
func TestCloseSegmentsUntilRefusedWaitsForTheArchiver(t *testing.T) {
	f := &fakeArchiver{}
	stuck := func(context.Context, Query) (string, error) { f.closed++; return "", nil }
	_, err := CloseSegmentsUntilRefused(t.Context(), f.query, stuck, Pace{Poll: time.Millisecond, Timeout: 50 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "no WAL segment refused") {
		t.Errorf("err = %v, want the deadline's", err)
	}
	if f.closed != 1 {
		t.Errorf("closed %d segments while the first was not tried, want 1", f.closed)
	}
}
