package node

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// StorageClassName is the node's default StorageClass: static local PVs,
// bound when a Pod is scheduled. There is no CSI driver, so no volume
// expansion and no VolumeSnapshots.
const StorageClassName = "local"

// Storage tunes the node's static PVs.
type Storage struct {
	// PVs is how many PersistentVolumes exist at any time (default 12).
	PVs int
	// Size is each PV's capacity (default 2Gi; nothing enforces it).
	Size string
}

func (s Storage) withDefaults() Storage {
	if s.PVs == 0 {
		s.PVs = 12
	}
	if s.Size == "" {
		s.Size = "2Gi"
	}
	return s
}

// storage keeps s.PVs Available PVs: a Released one (its claim deleted)
// still holds data and a claimRef, so it is deleted and a fresh one, with
// a fresh directory, takes its place.
type storage struct {
	client kubernetes.Interface
	dir    string
	node   string
	spec   Storage
	next   int
}

func (n *Node) startStorage(ctx context.Context, spec Storage) error {
	client, err := kubernetes.NewForConfig(n.Config)
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}
	s := &storage{client: client, dir: filepath.Join(n.dir, "pv"), node: n.Name, spec: spec.withDefaults()}
	if err := s.createClass(ctx); err != nil {
		return err
	}
	for range s.spec.PVs {
		if err := s.createPV(ctx); err != nil {
			return err
		}
	}
	loopCtx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.recycle(loopCtx)
	}()
	n.stopStorage = func() { cancel(); <-done }
	return nil
}

func (s *storage) createClass(ctx context.Context) error {
	mode := storagev1.VolumeBindingWaitForFirstConsumer
	reclaim := corev1.PersistentVolumeReclaimRetain
	sc := &storagev1.StorageClass{
		ObjectMeta: metav1.ObjectMeta{Name: StorageClassName, Annotations: map[string]string{
			"storageclass.kubernetes.io/is-default-class": "true"}},
		Provisioner:       "kubernetes.io/no-provisioner",
		VolumeBindingMode: &mode,
		ReclaimPolicy:     &reclaim,
	}
	if _, err := s.client.StorageV1().StorageClasses().Create(ctx, sc, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create StorageClass: %w", err)
	}
	return nil
}

// createPV makes a directory and a local PV for it, pinned to the node.
func (s *storage) createPV(ctx context.Context) error {
	s.next++
	name := "pv-" + strconv.Itoa(s.next)
	path := filepath.Join(s.dir, name)
	if err := os.MkdirAll(path, 0o777); err != nil {
		return fmt.Errorf("PV directory: %w", err)
	}
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(s.spec.Size)},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			StorageClassName:              StorageClassName,
			PersistentVolumeSource: corev1.PersistentVolumeSource{
				Local: &corev1.LocalVolumeSource{Path: path},
			},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
					Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpIn, Values: []string{s.node},
				}}}},
			}},
		},
	}
	if _, err := s.client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create PV %s: %w", name, err)
	}
	return nil
}

// recycle replaces Released PVs every second until ctx ends. Their
// directories stay until the node stops: a test may still read them.
func (s *storage) recycle(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
		pvs, err := s.client.CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{})
		if err != nil {
			continue
		}
		for _, pv := range pvs.Items {
			if pv.Spec.StorageClassName != StorageClassName || pv.Status.Phase != corev1.VolumeReleased {
				continue
			}
			err := s.client.CoreV1().PersistentVolumes().Delete(ctx, pv.Name, metav1.DeleteOptions{})
			if err == nil || apierrors.IsNotFound(err) {
				_ = s.createPV(ctx)
			}
		}
	}
}
