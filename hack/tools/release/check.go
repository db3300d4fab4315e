package release

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// RequiredKinds are the kinds an install must contain.
var RequiredKinds = []string{
	"CustomResourceDefinition", "Namespace", "ServiceAccount",
	"ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "Deployment",
}

// Check verifies a rendered install: every required kind present, every
// container of every workload running exactly img.Ref(), and no ":latest"
// anywhere.
func Check(install []byte, img Image) error {
	if bytes.Contains(install, []byte(":latest")) {
		return errors.New("install.yaml mentions :latest")
	}
	nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(install), OmitReaderAnnotations: true}).Read()
	if err != nil {
		return fmt.Errorf("parse install.yaml: %w", err)
	}
	kinds := map[string]int{}
	var errs []error
	for _, n := range nodes {
		kinds[n.GetKind()]++
		images, err := containerImages(n)
		if err != nil {
			return err
		}
		for _, image := range images {
			if image != img.Ref() {
				errs = append(errs, fmt.Errorf("%s %s runs %q, want %q", n.GetKind(), n.GetName(), image, img.Ref()))
			}
		}
	}
	for _, k := range RequiredKinds {
		if kinds[k] == 0 {
			errs = append(errs, fmt.Errorf("install.yaml has no %s", k))
		}
	}
	return errors.Join(errs...)
}

// containerImages lists the images of a workload's containers and init
// containers.
func containerImages(n *kyaml.RNode) ([]string, error) {
	var images []string
	for _, field := range []string{"containers", "initContainers"} {
		list, err := n.Pipe(kyaml.Lookup("spec", "template", "spec", field))
		if err != nil || list == nil {
			continue
		}
		err = list.VisitElements(func(c *kyaml.RNode) error {
			images = append(images, strings.TrimSpace(kyaml.GetValue(c.Field("image").Value)))
			return nil
		})
		if err != nil && err != io.EOF {
			return nil, err
		}
	}
	return images, nil
}
