package cluster

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
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

// Annotations on a CNPG Cluster setpoint created again after a loss. Later
// passes read them back from the CNPG Cluster (never from status): its
// bootstrap must stay as it was created, and they say which request the
// cluster answered.
const (
	recreatedFromAnnotation = "postgres.setpoint.dev/recreated-from" // the lost CNPG Cluster's UID
	recreatedAsAnnotation   = "postgres.setpoint.dev/recreated-as"   // the request: empty or latest-backup
	recoveredFromAnnotation = "postgres.setpoint.dev/recovered-from" // the folder recovered (latest-backup)
)

// recreation is a CNPG Cluster created again after a loss.
type recreation struct {
	mode, lostUID, from string
	// serverName is the new cluster's archive folder, set only in the pass
	// that creates it; later passes read it from the CNPG Cluster's plugin
	// parameters (archiveServerName).
	serverName string
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

func recreationOf(cl *cnpgv1.Cluster) *recreation {
	a := cl.Annotations
	if a[recreatedAsAnnotation] == "" {
		return nil
	}
	return &recreation{mode: a[recreatedAsAnnotation], lostUID: a[recreatedFromAnnotation], from: a[recoveredFromAnnotation]}
}

func (r *recreation) annotations() map[string]string {
	m := map[string]string{recreatedAsAnnotation: r.mode, recreatedFromAnnotation: r.lostUID}
	if r.from != "" {
		m[recoveredFromAnnotation] = r.from
	}
	return m
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

// removeRequest deletes the recreate annotation if it still says request
// (a JSON patch test): a request changed meanwhile is the next pass's.
func removeRequest(ctx context.Context, p *pass, request string) error {
	path := "/metadata/annotations/" + strings.ReplaceAll(pgv1.RecreateAnnotation, "/", "~1")
	patch := fmt.Appendf(nil, `[{"op":"test","path":%q,"value":%q},{"op":"remove","path":%q}]`, path, request, path)
	_, err := p.deps.pg.PostgresV1alpha1().PostgresClusters(p.cluster.Namespace).Patch(ctx, p.cluster.Name,
		types.JSONPatchType, patch, metav1.PatchOptions{FieldManager: fieldManager})
	var status apierrors.APIStatus
	if err == nil || apierrors.IsNotFound(err) || errors.As(err, &status) && status.Status().Code == http.StatusUnprocessableEntity {
		return nil // removed, or no longer there as it was
	}
	return fmt.Errorf("remove %s annotation: %w", pgv1.RecreateAnnotation, err)
}

// planRecreate turns a request into a recreation, or says why it cannot
// be carried out. The new cluster archives under <name>-<first 8
// characters of the lost cluster's UID>: the lost one's folder holds WAL,
// where barman-cloud refuses to archive a new cluster (and two histories
// would mix).
func planRecreate(p *pass, l *loss, request string) (*recreation, string) {
	if request != pgv1.RecreateEmpty && request != pgv1.RecreateLatestBackup {
		return nil, fmt.Sprintf("%s=%q: the value must be %q or %q", pgv1.RecreateAnnotation, request, pgv1.RecreateEmpty, pgv1.RecreateLatestBackup)
	}
	if l.uid == "" {
		return nil, fmt.Sprintf("setpoint has no record of the lost cluster's UID (its ConfigMap %q is gone too), which names the new cluster's archive folder: "+
			"delete this PostgresCluster and create it again, with spec.restore to recover from its backups", p.name(configMapSuffix))
	}
	r := &recreation{mode: request, lostUID: l.uid, serverName: restoredServerName(p.cluster.Name, l.uid)}
	if request == pgv1.RecreateLatestBackup {
		if msg := latestBackupRefusal(p, l); msg != "" {
			return nil, msg
		}
		r.from = l.serverName
	}
	return r, ""
}

// latestBackupRefusal says why the lost cluster's folder cannot be
// recovered from, or returns "". Whether a backup exists is what the
// barman-cloud plugin reports in the ObjectStore setpoint owns.
func latestBackupRefusal(p *pass, l *loss) string {
	store := naming.ObjectStore(p.cluster.Name)
	os := p.obs.objectStore
	switch {
	case l.serverName == "":
		return fmt.Sprintf("there is no record that the lost cluster archived anywhere (the ConfigMap %q records none)", p.name(configMapSuffix))
	case p.want.ObjectStore == nil:
		return "the cluster has no object store configured to recover from"
	case os == nil || !ownership.IsControlledBy(os, p.cluster.UID):
		return fmt.Sprintf("the ObjectStore %q is not there", store)
	case l.root != "" && os.Spec.Configuration.DestinationPath != l.root:
		return fmt.Sprintf("the ObjectStore %q points at %q now; the lost cluster archived under %q", store, os.Spec.Configuration.DestinationPath, l.root)
	}
	if w, ok := os.Status.ServerRecoveryWindow[l.serverName]; !ok || w.LastSuccessfulBackupTime == nil {
		return fmt.Sprintf("the ObjectStore %q reports no completed backup of folder %q, so there is nothing to recover; use %s=%s to start empty",
			store, l.serverName, pgv1.RecreateAnnotation, pgv1.RecreateEmpty)
	}
	return ""
}

// withRecreate makes the desired spec that of a recreated cluster:
// recovered from the lost folder (latest-backup, to the end of its
// archived WAL) or bootstrapped empty, whatever spec.restore says (that
// restore was the lost cluster's beginning, not this one's).
func withRecreate(p *pass, spec *cnpgac.ClusterSpecApplyConfiguration) {
	r := p.provisioner.recreate
	if r == nil {
		return
	}
	spec.Bootstrap, spec.ExternalClusters = nil, nil
	p.status.RestoredFrom = nil
	if r.mode == pgv1.RecreateLatestBackup {
		store := naming.ObjectStore(p.cluster.Name)
		spec.WithBootstrap(cnpgac.BootstrapConfiguration().WithRecovery(cnpgac.BootstrapRecovery().WithSource(restoreSourceName)))
		spec.WithExternalClusters(cnpgac.ExternalCluster().WithName(restoreSourceName).WithPluginConfiguration(
			cnpgac.PluginConfiguration().WithName(barmanPlugin).
				WithParameters(map[string]string{"barmanObjectName": store, "serverName": r.from})))
		p.status.RestoredFrom = restoredFrom(p, &pgv1.RestoreSpec{Source: r.from}, store)
	}
	if r.serverName == "" {
		return
	}
	for i := range spec.Plugins {
		if pl := &spec.Plugins[i]; pl.Name != nil && *pl.Name == barmanPlugin {
			pl.Parameters["serverName"] = r.serverName
		}
	}
}

// recreated finishes a request once its CNPG Cluster exists: an Event,
// and the annotation removed.
func recreated(ctx context.Context, p *pass) error {
	r := p.provisioner.recreate
	how := "empty"
	if r.mode == pgv1.RecreateLatestBackup {
		how = fmt.Sprintf("from the latest backup and archived WAL of folder %q", r.from)
	}
	p.deps.recorder.Eventf(p.cluster, corev1.EventTypeNormal, pgv1.EventRecreated,
		"created CNPG Cluster %s again, %s, after CNPG Cluster UID %s was lost (%s=%s); it archives under %q",
		p.cluster.Name, how, r.lostUID, pgv1.RecreateAnnotation, r.mode, r.serverName)
	klog.FromContext(ctx).Info("Recreated lost CNPG Cluster", "mode", r.mode, "lostUID", r.lostUID, "serverName", r.serverName)
	return removeRequest(ctx, p, r.mode)
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
