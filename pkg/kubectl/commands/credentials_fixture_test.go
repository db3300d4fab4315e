package commands

import (
	"io"
	"net/http"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	restfake "k8s.io/client-go/rest/fake"
	kubetesting "k8s.io/client-go/testing"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
	pgfake "github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
	pgscheme "github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/scheme"
	cnpgclient "github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/typed/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/kubectl/inspect"
	"github.com/setpoint-dev/setpoint/pkg/naming"
	"github.com/setpoint-dev/setpoint/pkg/pki"
)

const fixtureNamespace = "default"

// fixtureNames are the objects a command's argument may name: each
// command is tried with each, whatever its usage line calls the argument.
var fixtureNames = []string{"shop", "shop-app", "shop-certs", "shop-2"}

// world is one state of a cluster "shop" with two PostgresDatabases:
// "shop-app" logs in by password (admin, rw and ro), "shop-certs" by
// certificate. Every Secret a real cluster has is there, each with values
// of its own, so a leak names its Secret.
type world struct {
	name    string
	objects []runtime.Object
}

// worlds are the states that lead the commands to read Secrets: all
// Ready; a cluster and a database waiting for their Secrets (explain reads
// each one); a database waiting for its cluster (explain follows it).
func worlds() []world {
	return []world{
		{"ready", fixture(nil, nil)},
		{"secrets unmet",
			fixture([]metav1.Condition{unmet(pgv1.ConditionSecretReady, "SuperuserSecretNotFound")},
				[]metav1.Condition{unmet(pgv1.ConditionSecretsReady, "ExternalSecretNotFound")})},
		{"cluster unmet",
			fixture([]metav1.Condition{unmet(pgv1.ConditionSecretReady, "SuperuserSecretNotFound")},
				[]metav1.Condition{unmet(pgv1.ConditionClusterReady, "ClusterNotReady")})},
	}
}

func unmet(condition, reason string) metav1.Condition {
	return metav1.Condition{Type: condition, Status: metav1.ConditionFalse, Reason: reason, Message: "waiting"}
}

func ready(condition string) metav1.Condition {
	return metav1.Condition{Type: condition, Status: metav1.ConditionTrue, Reason: condition}
}

// fixture is the world's objects; with no unmet conditions both objects
// are Ready.
func fixture(clusterUnmet, databaseUnmet []metav1.Condition) []runtime.Object {
	cnpgMeta := fixtureMeta("shop")
	cnpgMeta.OwnerReferences = []metav1.OwnerReference{{APIVersion: pgv1.SchemeGroupVersion.String(), Kind: "PostgresCluster",
		Name: "shop", UID: fixtureUID("shop"), Controller: ptr(true)}}
	objs := []runtime.Object{fixtureCluster(clusterUnmet), &cnpgv1.Cluster{ObjectMeta: cnpgMeta,
		Status: cnpgv1.ClusterStatus{Phase: "Cluster in healthy state", Instances: 2, ReadyInstances: 2, CurrentPrimary: "shop-1", TargetPrimary: "shop-1"}}}
	for _, p := range naming.Poolers("shop") {
		objs = append(objs, &cnpgv1.Pooler{ObjectMeta: fixtureMeta(p), Status: cnpgv1.PoolerStatus{Instances: 1}})
	}
	objs = append(objs,
		secret(naming.SuperuserSecret("shop"), "postgres", "superuser-Pw@1/ö&<su>"),
		secret(naming.MonitorSecret("shop"), "setpoint_monitor", "monitor-Pw@2/ö&<mon>"),
		&corev1.Secret{ObjectMeta: fixtureMeta(naming.CASecret("shop")), Data: map[string][]byte{
			"ca.crt": fixtureCA.CertPEM, "ca.key": fixtureCA.KeyPEM}})
	objs = append(objs, passwordDatabase(databaseUnmet)...)
	objs = append(objs, pods()...)
	return append(objs, certificateDatabase(databaseUnmet)...)
}

// pods are the cluster's two instances, a PgBouncer Pod and the
// operator's Pod, labelled as CloudNativePG and install.yaml label them.
func pods() []runtime.Object {
	pod := func(ns, name string, labels map[string]string, container string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
			Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: container}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	}
	return []runtime.Object{
		pod(fixtureNamespace, "shop-1", map[string]string{"cnpg.io/cluster": "shop", "cnpg.io/instanceRole": "primary"}, "postgres"),
		pod(fixtureNamespace, "shop-2", map[string]string{"cnpg.io/cluster": "shop", "cnpg.io/instanceRole": "replica"}, "postgres"),
		pod(fixtureNamespace, "shop-pooler-rw-5c7", map[string]string{"cnpg.io/cluster": "shop", "cnpg.io/poolerName": "shop-pooler-rw"}, "pgbouncer"),
		pod("setpoint-system", "setpoint-6b8", map[string]string{"app.kubernetes.io/name": "setpoint"}, "manager"),
	}
}

func fixtureCluster(unmetConds []metav1.Condition) *pgv1.PostgresCluster {
	meta := fixtureMeta("shop")
	meta.UID = fixtureUID("shop")
	pc := &pgv1.PostgresCluster{ObjectMeta: meta, Spec: pgv1.PostgresClusterSpec{Class: "standard"},
		Status: pgv1.PostgresClusterStatus{Phase: pgv1.PhaseReady, ObservedGeneration: 1,
			ConnectionPoolerStatus: &pgv1.ConnectionPoolerStatus{Enabled: true, ReadWrite: "active", ReadOnly: "active"},
			BackupStatus:           &pgv1.BackupStatus{ObjectStore: naming.ObjectStore("shop"), ServerName: "shop"}}}
	pc.Status.Conditions = conditions(pgv1.ClusterConditions, unmetConds)
	if len(unmetConds) > 0 {
		pc.Status.Phase = pgv1.PhaseProvisioning
	}
	return pc
}

// conditions are chain's conditions True but those unmet lists, and Ready.
func conditions(chain []string, unmetConds []metav1.Condition) []metav1.Condition {
	var out []metav1.Condition
	for _, c := range chain {
		out = append(out, ready(c))
		for _, u := range unmetConds {
			if u.Type == c {
				out[len(out)-1] = u
			}
		}
	}
	if len(unmetConds) > 0 {
		return append(out, unmet(pgv1.ConditionReady, unmetConds[0].Reason))
	}
	return append(out, ready(pgv1.ConditionReady))
}

func fixtureDatabase(name string, spec pgv1.DatabaseSpec, unmetConds []metav1.Condition) *pgv1.PostgresDatabase {
	db := &pgv1.PostgresDatabase{ObjectMeta: fixtureMeta(name),
		Spec: pgv1.PostgresDatabaseSpec{ClusterRef: pgv1.ClusterReference{Name: "shop"}, Databases: []pgv1.DatabaseSpec{spec}},
		Status: pgv1.PostgresDatabaseStatus{Phase: pgv1.PhaseReady, ObservedGeneration: 1,
			Conditions: conditions(pgv1.DatabaseConditions, unmetConds)}}
	db.UID = fixtureUID(name)
	if len(unmetConds) > 0 {
		db.Status.Phase = pgv1.PhaseProvisioning
	}
	return db
}

// passwordDatabase is "shop-app" (database order_items), its roles'
// Secrets and its connection ConfigMap.
func passwordDatabase(unmetConds []metav1.Condition) []runtime.Object {
	spec := pgv1.DatabaseSpec{Name: "order_items", ReadOnlyRole: true}
	n := naming.Database("shop-app", spec.Name)
	cm := connectionData("shop-app", n)
	objs := []runtime.Object{fixtureDatabase("shop-app", spec, unmetConds), cm}
	for _, r := range inspect.RolesOf("shop-app", spec) {
		cm.Data[r.Kind+"-user"], cm.Data[r.Kind+"-secret"] = r.Name, r.Secret
		objs = append(objs, secret(r.Secret, r.Name, r.Kind+"-Pw@/ö&<"+r.Name+">"))
	}
	cm.Data[naming.KeyPoolerHost] = naming.Host(fixtureNamespace, naming.PoolerRW("shop"))
	return objs
}

// certificateDatabase is "shop-certs" (database ledger), which logs in by
// certificate: CloudNativePG's client certificate Secrets hold the keys.
func certificateDatabase(unmetConds []metav1.Condition) []runtime.Object {
	spec := pgv1.DatabaseSpec{Name: "ledger", Authentication: pgv1.AuthenticationCertificate}
	n := naming.Database("shop-certs", spec.Name)
	cm := connectionData("shop-certs", n)
	cm.Data[naming.KeyAuthentication] = string(pgv1.AuthenticationCertificate)
	objs := []runtime.Object{fixtureDatabase("shop-certs", spec, unmetConds), cm}
	for _, r := range inspect.RolesOf("shop-certs", spec) {
		certSecret := naming.ClientCertSecret(naming.RoleObject("shop", r.Name))
		cm.Data[r.Kind+"-user"], cm.Data[r.Kind+"-cert-secret"] = r.Name, certSecret
		crt, key, err := fixtureCA.IssueClient(r.Name, time.Now(), time.Hour)
		if err != nil {
			panic(err)
		}
		objs = append(objs, &corev1.Secret{ObjectMeta: fixtureMeta(certSecret), Data: map[string][]byte{"tls.crt": crt, "tls.key": key}})
	}
	return objs
}

// fixtureCA is the cluster's server CA, and issues the client
// certificates: real ones, which privileges parses.
var fixtureCA = func() *pki.Authority {
	a, err := pki.NewAuthority("shop-ca", time.Now(), time.Hour)
	if err != nil {
		panic(err)
	}
	return a
}()

// connectionData is the ConfigMap setpoint publishes for PostgresDatabase
// db: controlled by it.
func connectionData(db string, n naming.DatabaseNames) *corev1.ConfigMap {
	m := fixtureMeta(n.ConfigMap)
	m.OwnerReferences = []metav1.OwnerReference{{APIVersion: pgv1.SchemeGroupVersion.String(), Kind: "PostgresDatabase",
		Name: db, UID: fixtureUID(db), Controller: ptr(true)}}
	return &corev1.ConfigMap{ObjectMeta: m, Data: map[string]string{
		naming.KeyHost: naming.Host(fixtureNamespace, naming.RWService("shop")), naming.KeyPort: "5432",
		naming.KeyDatabase: n.DB, naming.KeyCASecret: naming.CASecret("shop"), naming.KeyCASecretKey: naming.CACertKey,
		naming.KeySSLMode: "verify-full"}}
}

// secret is a basic-auth Secret as CloudNativePG and setpoint write them:
// the password also inside the connection strings.
func secret(name, user, password string) *corev1.Secret {
	uri := "postgresql://" + user + ":" + password + "@shop-rw." + fixtureNamespace + ".svc:5432/"
	return &corev1.Secret{ObjectMeta: fixtureMeta(name), Type: corev1.SecretTypeBasicAuth, Data: map[string][]byte{
		"username": []byte(user), "password": []byte(password), "uri": []byte(uri),
		"pgpass": []byte("shop-rw:5432:*:" + user + ":" + password + "\n")}}
}

func fixtureUID(name string) types.UID { return types.UID("uid-" + name) }

func fixtureMeta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: fixtureNamespace, Name: name, Generation: 1}
}

// clients serves the world through fake clientsets: core kinds from the
// Kubernetes fake, setpoint's and CloudNativePG's from the generated one.
func (w world) clients() *clients {
	var kube, pg []runtime.Object
	for _, o := range w.objects {
		switch o.(type) {
		case *corev1.Secret, *corev1.ConfigMap, *corev1.Pod:
			kube = append(kube, o)
		default:
			pg = append(pg, o)
		}
	}
	return &clients{config: &rest.Config{}, kube: kubefake.NewClientset(kube...),
		pg:  withInstanceNames{answeringBackups(pgfake.NewClientset(pg...))},
		dyn: dynamicfake.NewSimpleDynamicClient(pgscheme.Scheme, pg...), namespace: fixtureNamespace}
}

// answeringBackups answers a backup request as the operator does, in the
// PostgresCluster's status, so that backup --wait runs to its end.
func answeringBackups(c *pgfake.Clientset) *pgfake.Clientset {
	c.PrependReactor("get", "postgresclusters", func(a kubetesting.Action) (bool, runtime.Object, error) {
		get := a.(kubetesting.GetAction)
		obj, err := c.Tracker().Get(get.GetResource(), get.GetNamespace(), get.GetName())
		if err != nil {
			return true, nil, err
		}
		pc := obj.(*pgv1.PostgresCluster).DeepCopy()
		if id := pc.Annotations[pgv1.BackupRequestAnnotation]; id != "" && pc.Status.BackupStatus != nil {
			pc.Status.BackupStatus.LastRequest = &pgv1.BackupRequestStatus{ID: id, Backup: pc.Name + "-" + id}
		}
		return true, pc, nil
	})
	return c
}

// withInstanceNames gives the fake clientset the raw REST client status
// reads the CNPG Cluster's status.instanceNames with (the generated
// fake has none).
type withInstanceNames struct{ versioned.Interface }

func (c withInstanceNames) CNPGV1() cnpgclient.CNPGV1Interface {
	return cnpgWithREST{c.Interface.CNPGV1()}
}

type cnpgWithREST struct{ cnpgclient.CNPGV1Interface }

func (cnpgWithREST) RESTClient() rest.Interface {
	return &restfake.RESTClient{
		NegotiatedSerializer: scheme.Codecs.WithoutConversion(),
		Client: restfake.CreateHTTPClient(func(req *http.Request) (*http.Response, error) {
			if !strings.HasSuffix(req.URL.Path, "/namespaces/"+fixtureNamespace+"/clusters/shop") {
				return &http.Response{StatusCode: http.StatusNotFound, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("{}"))}, nil
			}
			body := `{"status":{"instanceNames":["shop-1","shop-2"]}}`
			return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
				Body: io.NopCloser(strings.NewReader(body))}, nil
		}),
	}
}
