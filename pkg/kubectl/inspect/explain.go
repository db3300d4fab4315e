package inspect

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

var getOpts = metav1.GetOptions{}

// Explanation answers "why is this object not Ready?": the first condition
// of its chain that is not True, the child object behind it with that
// child's own status, and what the user can do. For a database blocked on
// its cluster, Cluster explains the cluster the same way.
type Explanation struct {
	// Object is "PostgresDatabase <ns>/<name>" or "PostgresCluster <ns>/<name>".
	Object string `json:"object"`
	Phase  string `json:"phase"`
	Ready  bool   `json:"ready"`
	// Current is false while status describes an older generation: the
	// operator has not looked at the latest spec yet.
	Current   bool       `json:"current"`
	Condition *Condition `json:"condition,omitempty"`
	Causes    []Cause    `json:"causes,omitempty"`
	Advice    string     `json:"advice,omitempty"`
	// Backup is the cluster's backup health while it is not healthy,
	// whether or not the cluster is Ready.
	Backup *BackupHealth `json:"backup,omitempty"`
	// Upgrade is the cluster's major upgrade while it runs or after it
	// failed, whether or not the cluster is Ready.
	Upgrade *Upgrade     `json:"upgrade,omitempty"`
	Cluster *Explanation `json:"cluster,omitempty"`
	// Privileges compares each role's privileges with the spec's, per
	// database: explain --privileges of a Ready PostgresDatabase.
	Privileges []Privileges `json:"privileges,omitempty"`
}

// Cause is a child object and what its own status says.
type Cause struct {
	// Object is "<Kind> <name>" in the explained object's namespace.
	Object string `json:"object"`
	Status string `json:"status"`
}

// ExplainDatabase walks the PostgresDatabase's condition chain.
func (r Reader) ExplainDatabase(ctx context.Context, name string) (*Explanation, error) {
	db, err := r.PG.PostgresV1alpha1().PostgresDatabases(r.Namespace).Get(ctx, name, getOpts)
	if err != nil {
		return nil, fmt.Errorf("get PostgresDatabase %s/%s: %w", r.Namespace, name, err)
	}
	e := explanationOf("PostgresDatabase", db.ObjectMeta, db.Status.Phase, db.Status.ObservedGeneration, db.Status.Conditions, DatabaseChain)
	if e.Ready || e.Condition == nil {
		return e, nil
	}
	e.Causes, e.Cluster, err = r.databaseCauses(ctx, db, e.Condition.Type)
	if err != nil {
		return nil, err
	}
	return e, nil
}

// ExplainCluster walks the PostgresCluster's condition chain.
func (r Reader) ExplainCluster(ctx context.Context, name string) (*Explanation, error) {
	c, err := r.PG.PostgresV1alpha1().PostgresClusters(r.Namespace).Get(ctx, name, getOpts)
	if err != nil {
		return nil, fmt.Errorf("get PostgresCluster %s/%s: %w", r.Namespace, name, err)
	}
	return r.explainClusterObject(ctx, c)
}

func (r Reader) explainClusterObject(ctx context.Context, c *pgv1.PostgresCluster) (*Explanation, error) {
	e := explanationOf("PostgresCluster", c.ObjectMeta, c.Status.Phase, c.Status.ObservedGeneration, c.Status.Conditions, ClusterChain)
	e.Backup = backupHealth(c.Status.Conditions)
	e.Upgrade = majorUpgrade(c.Status)
	if e.Ready || e.Condition == nil {
		return e, nil
	}
	causes, err := r.clusterCauses(ctx, c, e.Condition.Type)
	if err != nil {
		return nil, err
	}
	e.Causes = causes
	return e, nil
}

// explanationOf finds the first unmet condition and the advice for its
// reason; the causes are the caller's, per kind.
func explanationOf(kind string, meta metav1.ObjectMeta, phase pgv1.Phase, observed int64, conds []metav1.Condition, chain []string) *Explanation {
	e := &Explanation{
		Object:  fmt.Sprintf("%s %s/%s", kind, meta.Namespace, meta.Name),
		Phase:   string(phase),
		Current: observed == meta.Generation,
	}
	c, unmet := firstUnmet(conds, chain)
	switch {
	case unmet:
		cond := fromMeta(c)
		e.Condition, e.Advice = &cond, AdviceFor(c.Type, c.Reason)
	case hasReady(conds):
		e.Ready = e.Current
	default:
		e.Advice = "setpoint has not reported on this object yet: is the operator running (kubectl -n setpoint-system get pods)?"
	}
	if !e.Current && e.Advice == "" {
		e.Advice = "status describes an older generation: the operator has not processed the latest spec yet"
	}
	return e
}

func hasReady(conds []metav1.Condition) bool {
	for _, c := range conds {
		if c.Type == pgv1.ConditionReady {
			return c.Status == metav1.ConditionTrue
		}
	}
	return false
}
