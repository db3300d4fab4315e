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

func (l *lagLog) Updated(key types.NamespacedName, before, after string) {
	*l = append(*l, key.String()+" "+before+"->"+after)
}

// fakeDatabases is a PostgresDatabase client's status subresource that
// counts updates and records the field manager it was called with.
type fakeDatabases struct {
	updates *int
	err     error
	manager *string
}

func (f fakeDatabases) UpdateStatus(_ context.Context, db *pgv1.PostgresDatabase, opts metav1.UpdateOptions) (*pgv1.PostgresDatabase, error) {
	*f.updates++
	*f.manager = opts.FieldManager
	if f.err != nil {
		return nil, f.err
	}
	out := db.DeepCopy()
	out.ResourceVersion = "8"
	return out, nil
}

// writer counts updates and announcements on a PostgresDatabase; an
// announcement counts only after an update as field manager "setpoint".
func writer(updateErr error) (StatusWriter[*pgv1.PostgresDatabase, pgv1.PostgresDatabaseStatus], *int, *int, *lagLog) {
	updates, announced, lag, manager := 0, 0, &lagLog{}, ""
	client := func(string) fakeDatabases { return fakeDatabases{updates: &updates, err: updateErr, manager: &manager} }
	announce := func(context.Context, *pgv1.PostgresDatabase, *pgv1.PostgresDatabaseStatus) {
		if manager == "setpoint" { // the field manager NewStatusWriter was given
			announced++
		}
	}
	return NewStatusWriter(client, "setpoint", lag, announce), &updates, &announced, lag
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
