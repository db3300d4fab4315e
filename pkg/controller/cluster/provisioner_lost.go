package cluster

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// A CNPG Cluster deleted out of band after it had been Ready took its
// volumes with it. Creating an empty one under the same name — what a
// level-triggered "create what is missing" would do — hands applications
// an empty database where theirs was. So setpoint reports the loss
// (Failed, ProvisionerLost) and creates the CNPG Cluster again only when
// the user asks (pgv1.RecreateAnnotation).

// loss is a CNPG Cluster setpoint had seen Ready that is gone (or going).
type loss struct {
	// uid, serverName and root are what the connection ConfigMap recorded
	// of the lost cluster ("" when unknown).
	uid, serverName, root string
	// recorded: the ConfigMap is there (else only status said it was
	// Ready, which may only ever make setpoint more careful).
	recorded bool
	deleting bool
	// refused says why the recreate request cannot be carried out.
	refused string
}

// checkLoss runs right before the provisioner writes the CNPG Cluster,
// with cur as claimed from the cache. It returns the cluster to write to
// (nil to create one), or sets p.provisioner.loss when there must be no write at all.
// A request to recreate becomes p.provisioner.recreate; one that finds nothing lost
// is removed (settleRequest).
func checkLoss(ctx context.Context, p *pass, cur *cnpgv1.Cluster) (*cnpgv1.Cluster, error) {
	request := p.cluster.Annotations[pgv1.RecreateAnnotation]
	was, wasReady := lossRecord(p)
	if cur == nil && wasReady || cur != nil && request != "" {
		// Rare, and the decision is not one to take on a cache that may
		// lag (our own create, or the user's delete, not seen yet).
		var err error
		if cur, err = liveCluster(ctx, p); err != nil {
			return nil, err
		}
	}
	if cur != nil && cur.DeletionTimestamp == nil {
		p.provisioner.recreate = recreationOf(cur)
		if request != "" {
			return cur, settleRequest(ctx, p, request)
		}
		return cur, nil
	}
	if !wasReady {
		if request != "" && cur == nil {
			return nil, settleRequest(ctx, p, request) // nothing was lost: created as ever
		}
		return cur, nil
	}
	was.deleting = cur != nil
	p.provisioner.loss = &was
	if was.deleting || request == "" {
		return nil, nil
	}
	r, refused := planRecreate(p, &was, request)
	if refused != "" {
		was.refused = refused
		return nil, nil
	}
	p.provisioner.loss, p.provisioner.recreate = nil, r
	return nil, nil
}

// lossRecord reads what says the CNPG Cluster had been Ready: the
// connection ConfigMap setpoint wrote once it was, with its marks; else
// status saying the ConfigMap was published (taken only to be careful:
// the UID it names is used for nothing but naming a new folder).
func lossRecord(p *pass) (loss, bool) {
	if cm := p.obs.configMap; cm != nil && ownership.IsControlledBy(cm, p.cluster.UID) {
		a := cm.Annotations
		return loss{uid: a[provisionerUIDAnnotation], serverName: a[archiveServerAnnotation],
			root: a[archiveRootAnnotation], recorded: true}, true
	}
	st := p.status
	if st.Resources == nil || st.Resources.ConfigMapRef == nil {
		return loss{}, false
	}
	l := loss{}
	if ref := st.ProvisionerRef; ref != nil {
		l.uid = string(ref.UID)
	}
	return l, true
}

// liveCluster reads the CNPG Cluster from the API server and claims it.
func liveCluster(ctx context.Context, p *pass) (*cnpgv1.Cluster, error) {
	cl, err := readCNPG(ctx, p)
	if err != nil {
		return nil, err
	}
	p.provisioner.live = &liveRead{cnpg: cl}
	if cl == nil {
		return nil, nil
	}
	return claim(ctx, p, "CNPG Cluster", cl, p.deps.pg.CNPGV1().Clusters(p.cluster.Namespace), p.cluster.Name)
}

// readCNPG reads the CNPG Cluster from the API server, nil when there is
// none: a list by name, since the role may list and watch Clusters, not
// get them.
func readCNPG(ctx context.Context, p *pass) (*cnpgv1.Cluster, error) {
	list, err := p.deps.pg.CNPGV1().Clusters(p.cluster.Namespace).List(ctx,
		metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", p.cluster.Name).String()})
	if err != nil {
		return nil, fmt.Errorf("read CNPG Cluster: %w", err)
	}
	for i := range list.Items {
		if cl := &list.Items[i]; cl.Name == p.cluster.Name {
			return cl, nil
		}
	}
	return nil, nil
}

// lostHealth is the provisioner's report of a loss.
func lostHealth(p *pass) health {
	l := p.provisioner.loss
	what := fmt.Sprintf("CNPG Cluster %q", p.cluster.Name)
	if l.uid != "" {
		what = fmt.Sprintf("CNPG Cluster %q (UID %s)", p.cluster.Name, l.uid)
	}
	if l.deleting {
		return failed(pgv1.ReasonProvisionerLost, what+" is being deleted after it had been Ready: its volumes and data go with it. "+
			"setpoint creates no empty cluster in its place; once it is gone, annotate the PostgresCluster to create it again")
	}
	msg := what + " was deleted after it had been Ready: its volumes and data are gone, and setpoint does not create an empty cluster " +
		"in their place, where applications would reconnect to an empty database. " + recreateHint(p)
	if l.refused != "" {
		msg += " Request refused: " + l.refused
	}
	return failed(pgv1.ReasonProvisionerLost, msg)
}

// recreateHint says what the user can ask for.
func recreateHint(p *pass) string {
	annotate := fmt.Sprintf("kubectl annotate postgrescluster %s -n %s %s=", p.cluster.Name, p.cluster.Namespace, pgv1.RecreateAnnotation)
	empty := fmt.Sprintf("To start empty: `%s%s`.", annotate, pgv1.RecreateEmpty)
	if l := p.provisioner.loss; l.serverName != "" {
		return fmt.Sprintf("To recover its latest backup and archived WAL from folder %q: `%s%s`. %s", l.serverName, annotate, pgv1.RecreateLatestBackup, empty)
	}
	return empty + " There is no record of an archive to recover from."
}

// settleRequest removes a recreate request that finds its CNPG Cluster
// in place, so that it never stands in advance for a later loss: quietly
// when that cluster is the one the request created (the pass that
// created it could not yet see its own removal), else with a Warning.
func settleRequest(ctx context.Context, p *pass, request string) error {
	if r := p.provisioner.recreate; r == nil || r.mode != request {
		p.deps.recorder.Eventf(p.cluster, corev1.EventTypeWarning, pgv1.EventRecreateIgnored,
			"%s=%s removed: CNPG Cluster %s was not lost; a recreate request answers a loss and is not kept for a later one",
			pgv1.RecreateAnnotation, request, p.cluster.Name)
	}
	return removeRequest(ctx, p, request)
}
