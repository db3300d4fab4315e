package cnpgsim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// databaseFinalizer is CNPG's: it holds a Database until its reclaim
// policy has been carried out.
const databaseFinalizer = "cnpg.io/deleteDatabase"

// databaseRetry is how soon a Database that could not be applied (say, its
// owner role is not there yet) is tried again.
const databaseRetry = 2 * time.Second

var errNotServing = errors.New("cluster has no running server")

// syncDatabase carries out one CNPG Database on its Cluster's server.
func (s *Simulator) syncDatabase(ctx context.Context, key cache.ObjectName) (time.Duration, error) {
	db, err := s.databases.Databases(key.Namespace).Get(key.Name)
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("get database: %w", err)
	}
	if db.DeletionTimestamp != nil {
		return s.finalizeDatabase(ctx, db)
	}
	if !slices.Contains(db.Finalizers, databaseFinalizer) {
		// CNPG's finalizer reconciler adds it and the reconcile goes on.
		if db, err = s.setFinalizers(ctx, db, append(slices.Clone(db.Finalizers), databaseFinalizer)); err != nil || db == nil {
			return 0, err
		}
	}
	b, err := s.servingBackend(db.Namespace, db.Spec.Cluster.Name)
	if err != nil {
		// CNPG's instance manager reconciles Databases only on a running
		// primary; until then nothing changes.
		if _, cerr := s.clusters.Clusters(db.Namespace).Get(db.Spec.Cluster.Name); apierrors.IsNotFound(cerr) {
			return databaseRetry, s.writeDatabaseStatus(ctx, db, false, fmt.Sprintf("cluster %q not found", db.Spec.Cluster.Name), db.Status.Extensions)
		}
		return databaseRetry, nil
	}
	exts, err := applyDatabase(ctx, b, db.Spec)
	if err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		klog.FromContext(ctx).V(2).Info("Database not applied", "err", err)
		return databaseRetry, s.writeDatabaseStatus(ctx, db, false, err.Error(), db.Status.Extensions)
	}
	for _, e := range exts {
		if !e.Applied {
			return databaseRetry, s.writeDatabaseStatus(ctx, db, false, msgObjectsFailed, exts)
		}
	}
	return 0, s.writeDatabaseStatus(ctx, db, true, "", exts)
}

// msgObjectsFailed is CNPG's message when the database is there but one
// of its objects (an extension) is not; each object's own message is in
// status.extensions.
const msgObjectsFailed = "database object reconciliation failed"

// servingBackend is the backend of a ready Cluster, its server running.
func (s *Simulator) servingBackend(namespace, cluster string) (*backend, error) {
	c, err := s.clusters.Clusters(namespace).Get(cluster)
	if err != nil || c.Status.ReadyInstances == 0 {
		return nil, errNotServing
	}
	inst := s.instance(cache.ObjectName{Namespace: namespace, Name: cluster})
	if inst == nil || inst.uid != c.UID || !inst.backend.srv.running() {
		return nil, errNotServing
	}
	return inst.backend, nil
}

// SharedCreateStrategy is how a shared server copies the template for a
// new database. Postgres 15's default, WAL_LOG, writes the whole template
// (about 7.5 MB) to WAL for each database: a server of its own pays that
// once per database, but a shared server pays it for every Cluster's
// databases at once, and in the bench's convergence most of the shared
// server's time went there. FILE_COPY copies the files and checkpoints
// instead (twice as fast at eight at a time on the bench machine). No
// one outside can tell: CNPG's Database has no strategy field. The bench's
// lower bound, which runs CNPG's SQL itself, uses it too.
const SharedCreateStrategy = "FILE_COPY"

// applyDatabase creates, alters or drops the database, then each
// extension on its own as CNPG does (one failing does not stop the
// others): an error is the database's, the list each extension's verdict.
func applyDatabase(ctx context.Context, b *backend, spec cnpgv1.DatabaseSpec) ([]cnpgv1.DatabaseObjectStatus, error) {
	srv := b.srv
	err := srv.withConn(ctx, "postgres", func(ctx context.Context, conn *pgx.Conn) error {
		if spec.Ensure == cnpgv1.EnsureAbsent {
			return dropDatabase(ctx, conn, spec.Name)
		}
		var owner string
		err := conn.QueryRow(ctx, "SELECT pg_get_userbyid(datdba)::text FROM pg_database WHERE datname = $1", spec.Name).Scan(&owner)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			stmt := "CREATE DATABASE " + ident(spec.Name) + " OWNER " + ident(spec.Owner)
			if b.shared {
				stmt += " STRATEGY " + SharedCreateStrategy
			}
			if _, err := conn.Exec(ctx, stmt); err != nil {
				return fmt.Errorf("while creating database %q: %w", spec.Name, err)
			}
		case err != nil:
			return fmt.Errorf("while scanning if database %q exists: %w", spec.Name, err)
		case owner != spec.Owner:
			if _, err := conn.Exec(ctx, "ALTER DATABASE "+ident(spec.Name)+" OWNER TO "+ident(spec.Owner)); err != nil {
				return fmt.Errorf("while altering database %q owner to %s: %w", spec.Name, spec.Owner, err)
			}
		}
		return nil
	})
	if err != nil || spec.Ensure == cnpgv1.EnsureAbsent || len(spec.Extensions) == 0 {
		return nil, err
	}
	exts := make([]cnpgv1.DatabaseObjectStatus, len(spec.Extensions))
	err = srv.withConn(ctx, spec.Name, func(ctx context.Context, conn *pgx.Conn) error {
		for i, ext := range spec.Extensions {
			exts[i] = cnpgv1.DatabaseObjectStatus{Name: ext.Name, Applied: true}
			if err := applyExtension(ctx, conn, ext); err != nil {
				exts[i].Applied, exts[i].Message = false, err.Error()
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("while connecting to the database %q: %v", spec.Name, err)
	}
	return exts, nil
}

func applyExtension(ctx context.Context, conn *pgx.Conn, ext cnpgv1.ExtensionSpec) error {
	if ext.Ensure == cnpgv1.EnsureAbsent {
		if _, err := conn.Exec(ctx, "DROP EXTENSION IF EXISTS "+ident(ext.Name)); err != nil {
			return err // unwrapped, as CNPG returns it
		}
		return nil
	}
	stmt := "CREATE EXTENSION IF NOT EXISTS " + ident(ext.Name)
	if ext.Schema != "" {
		stmt += " SCHEMA " + ident(ext.Schema)
	}
	if ext.Version != "" {
		stmt += " VERSION " + quoteLiteral(ext.Version)
	}
	if _, err := conn.Exec(ctx, stmt); err != nil {
		return err // unwrapped, as CNPG returns it
	}
	return nil
}

func dropDatabase(ctx context.Context, conn *pgx.Conn, name string) error {
	// FORCE: sessions still open on it would otherwise block the drop.
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+ident(name)+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop database: %w", err)
	}
	return nil
}

// finalizeDatabase carries out the reclaim policy, then lets the Database go.
func (s *Simulator) finalizeDatabase(ctx context.Context, db *cnpgv1.Database) (time.Duration, error) {
	if !slices.Contains(db.Finalizers, databaseFinalizer) {
		return 0, nil
	}
	if db.Spec.DatabaseReclaimPolicy == cnpgv1.DatabaseReclaimDelete {
		b, err := s.servingBackend(db.Namespace, db.Spec.Cluster.Name)
		switch {
		case err == nil:
			if err := b.srv.withConn(ctx, "postgres", func(ctx context.Context, conn *pgx.Conn) error {
				return dropDatabase(ctx, conn, db.Spec.Name)
			}); err != nil {
				return 0, err
			}
			klog.FromContext(ctx).Info("Dropped database", "database", db.Spec.Name)
		case s.clusterExists(db.Namespace, db.Spec.Cluster.Name):
			// Wait for the server: the drop must happen.
			return databaseRetry, nil
		}
		// Without its Cluster the database went with the Cluster's data.
	}
	_, err := s.setFinalizers(ctx, db, slices.DeleteFunc(slices.Clone(db.Finalizers), func(f string) bool { return f == databaseFinalizer }))
	return 0, err
}

func (s *Simulator) clusterExists(namespace, name string) bool {
	c, err := s.clusters.Clusters(namespace).Get(name)
	return err == nil && c.DeletionTimestamp == nil
}

// setFinalizers patches the finalizer list, guarded by resourceVersion: a
// merge patch replaces lists whole, so a concurrent change must not be lost.
// setFinalizers patches the Database's finalizers and returns it as stored
// (nil if it is gone).
func (s *Simulator) setFinalizers(ctx context.Context, db *cnpgv1.Database, finalizers []string) (*cnpgv1.Database, error) {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"finalizers":      finalizers,
		"resourceVersion": db.ResourceVersion,
	}})
	if err != nil {
		return nil, fmt.Errorf("encode finalizer patch: %w", err)
	}
	next, err := s.cnpg.CNPGV1().Databases(db.Namespace).Patch(ctx, db.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: s.opts.FieldManager})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("patch database finalizers: %w", err)
	}
	return next, nil
}

func (s *Simulator) writeDatabaseStatus(ctx context.Context, db *cnpgv1.Database, applied bool, message string, exts []cnpgv1.DatabaseObjectStatus) error {
	// As CNPG's SetAsReady and SetAsFailed: only success records the
	// generation; a failure keeps the last one applied (none at first).
	want := cnpgv1.DatabaseStatus{ObservedGeneration: db.Status.ObservedGeneration, Applied: &applied, Message: message, Extensions: exts}
	if applied {
		want.ObservedGeneration = db.Generation
	}
	if equality.Semantic.DeepEqual(db.Status, want) {
		return nil
	}
	next := db.DeepCopy()
	next.Status = want
	if _, err := s.cnpg.CNPGV1().Databases(db.Namespace).UpdateStatus(ctx, next, metav1.UpdateOptions{FieldManager: s.opts.FieldManager}); err != nil {
		return fmt.Errorf("update database status: %w", err)
	}
	return nil
}
