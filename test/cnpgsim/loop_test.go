package cnpgsim

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
)

// The stand-in's own 409 retries are not printed at the default verbosity;
// other sync errors are.
func TestConflictRetriesAreQuietAtDefaultVerbosity(t *testing.T) {
	conflict := apierrors.NewConflict(schema.GroupResource{Group: "postgresql.cnpg.io", Resource: "clusters"}, "shop",
		errors.New("the object has been modified; please apply your changes to the latest version and try again"))
	for _, c := range []struct {
		name    string
		err     error
		entries int
	}{
		{"conflict", fmt.Errorf("update status: %w", conflict), 0},
		{"other error", errors.New("start postgres: exit status 1"), 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.Verbosity(0), ktesting.BufferLogs(true)))
			ctx := klog.NewContext(t.Context(), logger)
			l := newLoop("clusters", func(context.Context, cache.ObjectName) (time.Duration, error) { return 0, c.err })
			defer l.queue.ShutDown()
			l.add(cache.ObjectName{Namespace: "default", Name: "shop"})
			l.next(ctx)
			if got := logger.GetSink().(ktesting.Underlier).GetBuffer().Data(); len(got) != c.entries {
				t.Errorf("%d log entries at verbosity 0, want %d: %v", len(got), c.entries, got)
			}
		})
	}
}
