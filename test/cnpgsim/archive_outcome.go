package cnpgsim

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// The files of a server's directory (outside its data directory, so no
// base backup copies them) through which archive_command and the
// stand-in talk: the command writes each outcome, the stand-in writes the
// store's refusal while there is one.
const (
	archiveOutcomeFile = "archive-outcome"
	archiveRefusalFile = "archive-refusal"
)

// archiveWatch is how often a Cluster's archiving is looked at: the
// store's credentials (a Secret changed) and the last outcome. CNPG's
// instance manager hears of each outcome at once; 2 s is the stand-in's
// delay for it.
const archiveWatch = 2 * time.Second

// CNPG's ContinuousArchiving condition (api/v1/cluster_types.go), as its
// instance manager sets it after each wal-archive
// (pkg/management/postgres/webserver/local.go): True with a fixed message,
// or False with the archiver's error.
const conditionContinuousArchiving = "ContinuousArchiving"

func archivingCondition(outcome string) metav1.Condition {
	if outcome == "ok" {
		return metav1.Condition{Type: conditionContinuousArchiving, Status: metav1.ConditionTrue,
			Reason: "ContinuousArchivingSuccess", Message: "Continuous archiving is working"}
	}
	return metav1.Condition{Type: conditionContinuousArchiving, Status: metav1.ConditionFalse,
		Reason: "ContinuousArchivingFailing", Message: outcome}
}

// syncArchiving is the archiving loop's pass for one Cluster: it tells
// archive_command whether the store refuses, switches out the first WAL
// file of a new primary, and reports the last outcome in
// ContinuousArchiving. It looks again every archiveWatch while the
// Cluster's own server runs.
func (s *Simulator) syncArchiving(ctx context.Context, key cache.ObjectName) (time.Duration, error) {
	c, err := s.clusters.Clusters(key.Namespace).Get(key.Name)
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("get cluster: %w", err)
	}
	inst := s.instance(key)
	if inst == nil || inst.uid != c.UID || inst.backend.shared || c.DeletionTimestamp != nil {
		return 0, nil
	}
	srv := inst.backend.srv
	if !srv.initialized() {
		return archiveWatch, nil
	}
	a := inst.archiving.Load()
	if err := s.applyRefusal(ctx, srv, a, c.Namespace); err != nil {
		return 0, err
	}
	if err := shipFirstWAL(ctx, inst, srv, c.Status.Phase); err != nil {
		return 0, err
	}
	if err := s.reportArchiving(ctx, c, srv); err != nil {
		return 0, err
	}
	return archiveWatch, nil
}

// applyRefusal writes the store's refusal for archive_command, or removes
// it once the store accepts again; the ObjectStore is in the Cluster's
// namespace.
func (s *Simulator) applyRefusal(ctx context.Context, srv *server, a *archive, namespace string) error {
	path := filepath.Join(srv.dir, archiveRefusalFile)
	refusal := ""
	if a != nil {
		refusal = s.storeRefusal(namespace, a.config)
	}
	old, err := os.ReadFile(path)
	switch {
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("read archive refusal: %w", err)
	case refusal == "" && err == nil:
		klog.FromContext(ctx).V(2).Info("Object store accepts again")
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove archive refusal: %w", err)
		}
	case refusal != "" && string(old) != refusal+"\n":
		klog.FromContext(ctx).V(2).Info("Object store refuses", "why", refusal)
		return srv.owner.writeFile(path, []byte(refusal+"\n"))
	}
	return nil
}

// shipFirstWAL closes a new primary's first WAL segment once, so that
// archiving is proven (or found failing) soon after the Cluster is
// healthy instead of at archive_timeout; real CNPG's primaries report
// ContinuousArchiving within seconds of their start, and its
// walArchiveBootstrapper (pkg/management/postgres/wal.go) ships a first
// WAL file the same way: CHECKPOINT, then pg_switch_wal().
func shipFirstWAL(ctx context.Context, inst *instance, srv *server, phase string) error {
	if inst.firstWAL.Load() || inst.archiving.Load() == nil || phase != PhaseHealthy || !srv.running() {
		return nil
	}
	if _, err := os.Stat(filepath.Join(srv.dir, archiveOutcomeFile)); err == nil {
		inst.firstWAL.Store(true) // it archived already
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	err := srv.withConn(ctx, "postgres", func(ctx context.Context, conn *pgx.Conn) error {
		if _, err := conn.Exec(ctx, "CHECKPOINT"); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
		if _, err := conn.Exec(ctx, "SELECT pg_catalog.pg_switch_wal()"); err != nil {
			return fmt.Errorf("switch WAL: %w", err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("ship the first WAL file: %w", err)
	}
	inst.firstWAL.Store(true)
	return nil
}

// reportArchiving sets ContinuousArchiving from the last outcome, when it
// says something the Cluster's status does not.
func (s *Simulator) reportArchiving(ctx context.Context, c *cnpgv1.Cluster, srv *server) error {
	data, err := os.ReadFile(filepath.Join(srv.dir, archiveOutcomeFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil // nothing archived yet
	}
	if err != nil {
		return fmt.Errorf("read archive outcome: %w", err)
	}
	outcome := strings.TrimSpace(string(data))
	if outcome == "" {
		return nil // being written
	}
	cond := archivingCondition(outcome)
	if cur := meta.FindStatusCondition(c.Status.Conditions, cond.Type); cur != nil &&
		cur.Status == cond.Status && cur.Reason == cond.Reason && cur.Message == cond.Message {
		return nil
	}
	return s.setClusterCondition(ctx, c.Namespace, c.Name, cond)
}
