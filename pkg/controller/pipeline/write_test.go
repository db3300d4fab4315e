package pipeline

import (
	"context"
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

type lagLog []string

func (l *lagLog) Wrote(key types.NamespacedName, before, after string) {
	*l = append(*l, key.String()+" "+before+"->"+after)
}

// writer counts updates and announcements on a PostgresDatabase.
func writer(updateErr error) (StatusWriter[*pgv1.PostgresDatabase, pgv1.PostgresDatabaseStatus], *int, *int, *lagLog) {
	updates, announced, lag := 0, 0, &lagLog{}
	return StatusWriter[*pgv1.PostgresDatabase, pgv1.PostgresDatabaseStatus]{
		Stored: func(db *pgv1.PostgresDatabase) *pgv1.PostgresDatabaseStatus { return &db.Status },
		With: func(db *pgv1.PostgresDatabase, st *pgv1.PostgresDatabaseStatus) *pgv1.PostgresDatabase {
			out := db.DeepCopy()
			out.Status = *st
			return out
		},
		Update: func(_ context.Context, db *pgv1.PostgresDatabase) (*pgv1.PostgresDatabase, error) {
			updates++
			if updateErr != nil {
				return nil, updateErr
			}
			out := db.DeepCopy()
			out.ResourceVersion = "8"
			return out, nil
		},
		Lag:      lag,
		Announce: func(context.Context, *pgv1.PostgresDatabase, *pgv1.PostgresDatabaseStatus) { announced++ },
	}, &updates, &announced, lag
}

func TestStatusWriterWritesOnlyAChangedStatus(t *testing.T) {
	t.Parallel()
	db := &pgv1.PostgresDatabase{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "shop", ResourceVersion: "7"},
		Status: pgv1.PostgresDatabaseStatus{Phase: pgv1.PhasePending}}
	w, updates, announced, lag := writer(nil)

	got, err := w.Write(t.Context(), db, db.Status.DeepCopy())
	if err != nil || got != db || *updates != 0 || *announced != 0 {
		t.Fatalf("unchanged status: got %p (want the object as read), err %v, %d updates, %d announcements", got, err, *updates, *announced)
	}
	next := &pgv1.PostgresDatabaseStatus{Phase: pgv1.PhaseReady}
	got, err = w.Write(t.Context(), db, next)
	if err != nil || got.ResourceVersion != "8" || got.Status.Phase != pgv1.PhaseReady {
		t.Fatalf("changed status: got %+v, err %v", got, err)
	}
	if *updates != 1 || *announced != 1 || len(*lag) != 1 || (*lag)[0] != "ns/shop 7->8" {
		t.Errorf("%d updates, %d announcements, lag %v; want one of each, 7->8", *updates, *announced, *lag)
	}
}

func TestStatusWriterWrapsTheUpdateError(t *testing.T) {
	t.Parallel()
	conflict := errors.New("the object has been modified")
	w, _, announced, lag := writer(conflict)
	db := &pgv1.PostgresDatabase{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "shop", ResourceVersion: "7"}}
	if _, err := w.Write(t.Context(), db, &pgv1.PostgresDatabaseStatus{Phase: pgv1.PhaseReady}); !errors.Is(err, conflict) {
		t.Fatalf("err = %v, want the update's error wrapped", err)
	}
	if *announced != 0 || len(*lag) != 0 {
		t.Errorf("a failed write announced %d changes and recorded lag %v", *announced, *lag)
	}
}
