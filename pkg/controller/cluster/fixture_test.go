package cluster

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefakecs "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	ct "github.com/setpoint-dev/setpoint/pkg/controller/internal/controllertest"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// fixture runs whole passes of the cluster controller against fake
// clientsets behind one API server stand-in (controllertest.API), its
// informer caches seeded from them before each pass, on a clock of its own.
type fixture struct {
	t     *testing.T
	kube  *kubefakecs.Clientset
	pg    *fake.Clientset
	api   *ct.API
	inf   *informers.Informers
	c     *Controller
	rec   *record.FakeRecorder
	clock *clocktesting.FakeClock
}

func newFixture(t *testing.T, kubeObjs, pgObjs []runtime.Object) *fixture {
	t.Helper()
	f := &fixture{t: t, kube: kubefakecs.NewClientset(kubeObjs...), pg: fake.NewClientset(pgObjs...),
		rec: record.NewFakeRecorder(100), clock: clocktesting.NewFakeClock(t0)}
	f.api = ct.NewAPI(f.kube, f.pg)
	f.inf = informers.NewInformers(f.kube, f.pg, "", 0)
	if err := f.inf.AddIndexers(); err != nil {
		t.Fatal(err)
	}
	c, err := New(controller.Config{Kube: f.kube, PG: f.pg, Recorder: f.rec, Clock: f.clock}, f.inf)
	if err != nil {
		t.Fatal(err)
	}
	f.c = c
	return f
}

// refresh seeds the informer caches from the fake API, as the informers
// would after watching.
func (f *fixture) refresh() {
	f.t.Helper()
	ctx := f.t.Context()
	replace := func(inf cache.SharedIndexInformer, objs []any, err error) {
		if err != nil {
			f.t.Fatal(err)
		}
		for i := range objs {
			objs[i] = f.inf.AsCached(objs[i])
		}
		if err := inf.GetIndexer().Replace(objs, ""); err != nil {
			f.t.Fatal(err)
		}
	}
	all := metav1.ListOptions{}
	ours := metav1.ListOptions{LabelSelector: ownership.ManagedSelector().String()}
	pg, cnpg, core := f.inf.Setpoint.Postgres().V1alpha1(), f.inf.Setpoint.CNPG().V1(), f.inf.Kube.Core().V1()
	pcs, err := f.pg.PostgresV1alpha1().PostgresClusters("").List(ctx, all)
	replace(pg.PostgresClusters().Informer(), ct.Items(pcs.Items), err)
	classes, err := f.pg.PostgresV1alpha1().PostgresClusterClasses().List(ctx, all)
	replace(pg.PostgresClusterClasses().Informer(), ct.Items(classes.Items), err)
	ccs, err := f.pg.CNPGV1().Clusters("").List(ctx, all)
	replace(cnpg.Clusters().Informer(), ct.Items(ccs.Items), err)
	poolers, err := f.pg.CNPGV1().Poolers("").List(ctx, all)
	replace(cnpg.Poolers().Informer(), ct.Items(poolers.Items), err)
	sbs, err := f.pg.CNPGV1().ScheduledBackups("").List(ctx, all)
	replace(cnpg.ScheduledBackups().Informer(), ct.Items(sbs.Items), err)
	drs, err := f.pg.CNPGV1().DatabaseRoles("").List(ctx, all)
	replace(cnpg.DatabaseRoles().Informer(), ct.Items(drs.Items), err)
	oss, err := f.pg.BarmanCloudV1().ObjectStores("").List(ctx, all)
	replace(f.inf.Setpoint.BarmanCloud().V1().ObjectStores().Informer(), ct.Items(oss.Items), err)
	pms, err := f.pg.MonitoringV1().PodMonitors("").List(ctx, all)
	replace(f.inf.Setpoint.Monitoring().V1().PodMonitors().Informer(), ct.Items(pms.Items), err)
	ss, err := f.kube.CoreV1().Secrets("").List(ctx, ours)
	replace(core.Secrets().Informer(), ct.Items(ss.Items), err)
	cms, err := f.kube.CoreV1().ConfigMaps("").List(ctx, ours)
	replace(core.ConfigMaps().Informer(), ct.Items(cms.Items), err)
	svcs, err := f.kube.CoreV1().Services("").List(ctx, ours)
	replace(core.Services().Informer(), ct.Items(svcs.Items), err)
	deps, err := f.kube.AppsV1().Deployments("").List(ctx, metav1.ListOptions{LabelSelector: informers.PoolerDeploymentSelector})
	replace(f.inf.Poolers.Apps().V1().Deployments().Informer(), ct.Items(deps.Items), err)
	pods, err := f.kube.CoreV1().Pods("").List(ctx, metav1.ListOptions{LabelSelector: informers.CNPGPodSelector})
	replace(f.inf.Pods.Core().V1().Pods().Informer(), ct.Items(pods.Items), err)
}

// sync runs one pass of cluster name after refreshing the caches and
// clearing the API's log.
func (f *fixture) sync(name string) (workqueue.Result, error) {
	f.t.Helper()
	f.refresh()
	f.api.Clear()
	return f.c.sync(f.t.Context(), workqueue.Key{Namespace: "ns", Name: name})
}

// cluster reads a PostgresCluster as stored.
func (f *fixture) cluster(name string) *pgv1.PostgresCluster {
	f.t.Helper()
	pc, err := f.pg.PostgresV1alpha1().PostgresClusters("ns").Get(f.t.Context(), name, metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return pc
}

// events drains the Events recorded so far.
func (f *fixture) events() []string { return ct.Events(f.rec) }

// The fixture as controllertest.RunCase drives it.
func (f *fixture) Drain()             { f.events() }
func (f *fixture) FaultyAPI() *ct.API { return f.api }
func (f *fixture) Pass(name string) ([]string, pgv1.Phase, []metav1.Condition, error) {
	_, err := f.sync(name)
	pc := f.cluster(name)
	return f.events(), pc.Status.Phase, pc.Status.Conditions, err
}
