package cnpgsim

import (
	"context"
	"fmt"
	"os"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	kubeinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
	"github.com/setpoint-dev/setpoint/pkg/generated/informers/externalversions"
	cnpglisters "github.com/setpoint-dev/setpoint/pkg/generated/listers/cnpg/v1"
)

// Simulator is the CNPG stand-in. Create it with New, start it with Run;
// the fault-injection methods may be called from tests at any time.
type Simulator struct {
	opts  Options
	kube  kubernetes.Interface
	cnpg  versioned.Interface
	owner *osUser

	kubeInformers kubeinformers.SharedInformerFactory
	cnpgInformers externalversions.SharedInformerFactory
	clusters      cnpglisters.ClusterLister
	databases     cnpglisters.DatabaseLister
	databaseRoles cnpglisters.DatabaseRoleLister
	poolers       cnpglisters.PoolerLister
	backups       cnpglisters.ScheduledBackupLister
	baseBackups   cnpglisters.BackupLister
	secrets       corelisters.SecretLister
	services      corelisters.ServiceLister
	synced        []cache.InformerSynced
	catalogs      *imageCatalogs

	clusterLoop  *loop
	databaseLoop *loop
	roleLoop     *loop
	poolerLoop   *loop
	backupLoop   *loop
	baseBackup   *loop
	// archiveLoop follows each archiving server (archive_outcome.go).
	archiveLoop *loop

	hostMap *hostMap

	mu        sync.Mutex
	dir       string
	nextID    int
	instances map[cache.ObjectName]*instance
	faults    map[cache.ObjectName]*faults
	shared    *backend // SharedBackend mode only, created on first use
}

// New wires a Simulator to the API server behind cfg. Nothing runs until Run.
func New(cfg *rest.Config, opts Options) (*Simulator, error) {
	opts = opts.withDefaults()
	if _, err := labels.Parse(opts.Selector); err != nil {
		return nil, fmt.Errorf("selector: %w", err)
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	cnpg, err := versioned.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("cnpg client: %w", err)
	}
	owner, err := lookupOSUser()
	if err != nil {
		return nil, err
	}
	s := &Simulator{
		opts:          opts,
		kube:          kube,
		cnpg:          cnpg,
		owner:         owner,
		kubeInformers: kubeinformers.NewSharedInformerFactory(kube, 0),
		cnpgInformers: externalversions.NewSharedInformerFactoryWithOptions(cnpg, 0,
			externalversions.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = opts.Selector })),
		hostMap:   newHostMap(opts.HostMapFile),
		instances: map[cache.ObjectName]*instance{},
		faults:    map[cache.ObjectName]*faults{},
	}
	s.clusterLoop = newLoop("cluster", s.syncCluster)
	s.databaseLoop = newLoop("database", s.syncDatabase)
	s.roleLoop = newLoop("databaserole", s.syncDatabaseRole)
	s.poolerLoop = newLoop("pooler", s.syncPooler)
	s.backupLoop = newLoop("scheduledbackup", s.syncScheduledBackup)
	s.baseBackup = newLoop("backup", s.syncBackup)
	s.archiveLoop = newLoop("archiving", s.syncArchiving)
	if err := s.wireInformers(); err != nil {
		return nil, err
	}
	if err := s.wireImageCatalogs(cfg); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Simulator) wireInformers() error {
	cnpgInf := s.cnpgInformers.CNPG().V1()
	core := s.kubeInformers.Core().V1()
	s.clusters = cnpgInf.Clusters().Lister()
	s.databases = cnpgInf.Databases().Lister()
	s.databaseRoles = cnpgInf.DatabaseRoles().Lister()
	s.poolers = cnpgInf.Poolers().Lister()
	s.backups = cnpgInf.ScheduledBackups().Lister()
	s.baseBackups = cnpgInf.Backups().Lister()
	s.secrets = core.Secrets().Lister()
	s.services = core.Services().Lister()

	handlers := []struct {
		informer cache.SharedIndexInformer
		handler  cache.ResourceEventHandler
	}{
		{cnpgInf.Clusters().Informer(), s.clusterLoop.handler()},
		{cnpgInf.Databases().Informer(), s.databaseLoop.handler()},
		{cnpgInf.DatabaseRoles().Informer(), s.roleLoop.handler()},
		// A Cluster's spec (managed.roles) and its server's state decide
		// what its DatabaseRoles can do.
		{cnpgInf.Clusters().Informer(), s.clusterRoleEvents()},
		{cnpgInf.Poolers().Informer(), s.poolerLoop.handler()},
		// A Pooler's name joins its Cluster's host map and certificate.
		{cnpgInf.Poolers().Informer(), handlerFunc(s.enqueuePoolerCluster)},
		{cnpgInf.ScheduledBackups().Informer(), s.backupLoop.handler()},
		{cnpgInf.Backups().Informer(), s.baseBackup.handler()},
		{core.Secrets().Informer(), handlerFunc(s.secretChanged)},
		{core.Services().Informer(), handlerFunc(s.enqueueOwner)},
	}
	for _, h := range handlers {
		reg, err := h.informer.AddEventHandler(h.handler)
		if err != nil {
			return fmt.Errorf("add event handler: %w", err)
		}
		s.synced = append(s.synced, reg.HasSynced)
	}
	return nil
}

// Run starts the informers and workers and blocks until ctx ends. Then it
// stops every Postgres server and removes the data it created (and the
// host-map file), whatever state the objects are in.
func (s *Simulator) Run(ctx context.Context) error {
	logger := klog.FromContext(ctx).WithName("cnpgsim")
	ctx = klog.NewContext(ctx, logger)
	if err := s.prepareDir(); err != nil {
		return err
	}
	defer s.shutdown(logger)
	s.kubeInformers.StartWithContext(ctx)
	s.cnpgInformers.StartWithContext(ctx)
	defer s.kubeInformers.Shutdown()
	defer s.cnpgInformers.Shutdown()
	s.catalogs.factory.Start(ctx.Done())
	defer s.catalogs.factory.Shutdown()
	if !cache.WaitForNamedCacheSyncWithContext(ctx, s.synced...) {
		return fmt.Errorf("cnpgsim: caches did not sync: %w", ctx.Err())
	}
	logger.Info("CNPG stand-in running", "dir", s.dir, "sharedBackend", s.opts.SharedBackend, "hostMap", s.opts.HostMapFile)
	var wg sync.WaitGroup
	for _, l := range []*loop{s.clusterLoop, s.databaseLoop, s.roleLoop, s.poolerLoop, s.backupLoop, s.baseBackup, s.archiveLoop} {
		wg.Go(func() { l.run(ctx, s.opts.Workers) })
	}
	wg.Wait()
	return nil
}

// prepareDir makes the root directory traversable (not readable) by the
// postgres OS user, which owns each server's own directory below it.
func (s *Simulator) prepareDir() error {
	dir := s.opts.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "cnpgsim-")
		if err != nil {
			return fmt.Errorf("create data directory: %w", err)
		}
		dir = d
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create data directory: %w", err)
	}
	if err := os.Chmod(dir, 0o711); err != nil {
		return fmt.Errorf("chmod data directory: %w", err)
	}
	s.mu.Lock()
	s.dir = dir
	s.mu.Unlock()
	return nil
}

func (s *Simulator) shutdown(logger klog.Logger) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, inst := range s.instances {
		if inst.backend != s.shared {
			inst.backend.destroy(logger)
		}
		delete(s.instances, key)
	}
	if s.shared != nil {
		s.shared.destroy(logger)
		s.shared = nil
	}
	if err := s.hostMap.remove(); err != nil {
		logger.Error(err, "Remove host map")
	}
	if s.opts.Dir == "" && s.dir != "" {
		if err := os.RemoveAll(s.dir); err != nil {
			logger.Error(err, "Remove data directory")
		}
	}
	logger.Info("CNPG stand-in stopped")
}

// Dir is the root of the servers' data directories (empty before Run).
func (s *Simulator) Dir() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dir
}

func handlerFunc(f func(obj any)) cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    f,
		UpdateFunc: func(_, obj any) { f(obj) },
		DeleteFunc: f,
	}
}

func unwrapTombstone(obj any) any {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return d.Obj
	}
	return obj
}

// enqueueOwner routes a child (Service, Secret) event to the Cluster or
// Pooler that controls it, so a deleted child is recreated.
func (s *Simulator) enqueueOwner(obj any) {
	m, ok := unwrapTombstone(obj).(metav1.Object)
	if !ok {
		return
	}
	ref := metav1.GetControllerOf(m)
	if ref == nil || ref.APIVersion != cnpgv1.SchemeGroupVersion.String() {
		return
	}
	key := cache.ObjectName{Namespace: m.GetNamespace(), Name: ref.Name}
	switch ref.Kind {
	case "Cluster":
		if c, err := s.clusters.Clusters(key.Namespace).Get(key.Name); err == nil && c.UID == ref.UID {
			s.clusterLoop.add(key)
		}
	case "Pooler":
		if p, err := s.poolers.Poolers(key.Namespace).Get(key.Name); err == nil && p.UID == ref.UID {
			s.poolerLoop.add(key)
		}
	case "DatabaseRole": // its client certificate's Secret (Owns in CNPG)
		if r, err := s.databaseRoles.DatabaseRoles(key.Namespace).Get(key.Name); err == nil && r.UID == ref.UID {
			s.roleLoop.add(key)
		}
	}
}

func (s *Simulator) enqueuePoolerCluster(obj any) {
	if p, ok := unwrapTombstone(obj).(*cnpgv1.Pooler); ok {
		s.clusterLoop.add(cache.ObjectName{Namespace: p.Namespace, Name: p.Spec.Cluster.Name})
	}
}

// secretChanged re-reads Clusters and DatabaseRoles when a Secret they use
// changes. Like CNPG, password Secrets are watched only when labelled
// cnpg.io/reload.
func (s *Simulator) secretChanged(obj any) {
	secret, ok := unwrapTombstone(obj).(*corev1.Secret)
	if !ok {
		return
	}
	s.enqueueOwner(secret)
	if len(secret.Data[caCertKey]) > 0 && len(secret.Data[caKeyKey]) > 0 {
		s.enqueueClientCADatabaseRoles(secret)
	}
	if secret.Labels[reloadLabel] != "true" {
		return
	}
	s.enqueueSecretDatabaseRoles(secret.Namespace, secret.Name)
	clusters, err := s.clusters.Clusters(secret.Namespace).List(everything)
	if err != nil {
		return
	}
	for _, c := range clusters {
		if usesSecret(c, secret.Name) {
			s.clusterLoop.add(cache.ObjectName{Namespace: c.Namespace, Name: c.Name})
		}
	}
}
