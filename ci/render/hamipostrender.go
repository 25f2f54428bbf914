package render

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// HAMi chart 2.10.0 names both the kube-scheduler ConfigMap and the scheduler
// Deployment `include "hami-vgpu.scheduler"`, i.e. "<release>-scheduler"
// (charts/hami/templates/scheduler/configmap.yaml and deployment.yaml at
// v2.10.0); the ConfigMap's key for Kubernetes >= 1.22 is config.yaml.
const (
	HAMiSchedulerObject    = HAMiRelease + "-scheduler"
	HAMiSchedulerConfigKey = "config.yaml"
	// AnnoSchedulerConfig carries the hash of the configuration gpu-lab put
	// into the ConfigMap on the Deployment's pod template, so a changed
	// configuration restarts HAMi's kube-scheduler (the chart's own checksum
	// annotation hashes its template, not the post-rendered ConfigMap).
	AnnoSchedulerConfig = "gpu-lab.dev/scheduler-config-sha256"
)

// HAMiPostRender is the helm post-renderer of the HAMi install: it replaces
// the kube-scheduler configuration the chart rendered with schedulerConfig
// (HAMiSchedulerConfig at ChartPlace: the chart's own settings plus the lab's
// retry backoff, for which the chart has no value) and stamps its hash on the
// scheduler Deployment's pod template. Every other document passes through
// unchanged. It fails when the chart no longer renders the ConfigMap or the
// Deployment, rather than installing HAMi with a configuration gpu-lab did
// not choose.
func HAMiPostRender(manifests, schedulerConfig []byte) ([]byte, error) {
	sum := sha256.Sum256(schedulerConfig)
	hash := hex.EncodeToString(sum[:])
	docs, err := splitYAMLDocs(manifests)
	if err != nil {
		return nil, fmt.Errorf("post-render the HAMi chart: %w", err)
	}
	var foundCM, foundDeploy bool
	for i, doc := range docs {
		var meta struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil || meta.Metadata.Name != HAMiSchedulerObject {
			continue
		}
		switch meta.Kind {
		case "ConfigMap":
			if docs[i], err = replaceSchedulerConfig(doc, schedulerConfig); err != nil {
				return nil, err
			}
			foundCM = true
		case "Deployment":
			if docs[i], err = stampSchedulerConfigHash(doc, hash); err != nil {
				return nil, err
			}
			foundDeploy = true
		}
	}
	if !foundCM || !foundDeploy {
		return nil, fmt.Errorf("post-render: the chart rendered no ConfigMap and Deployment %s (found ConfigMap: %t, Deployment: %t); "+
			"is this HAMi chart 2.10?", HAMiSchedulerObject, foundCM, foundDeploy)
	}
	return joinYAMLDocs(docs), nil
}

// replaceSchedulerConfig puts schedulerConfig into the kube-scheduler
// ConfigMap doc in place of the chart's configuration.
func replaceSchedulerConfig(doc string, schedulerConfig []byte) (string, error) {
	var cm corev1.ConfigMap
	if err := yaml.Unmarshal([]byte(doc), &cm); err != nil {
		return "", fmt.Errorf("post-render ConfigMap %s: %w", HAMiSchedulerObject, err)
	}
	if _, ok := cm.Data[HAMiSchedulerConfigKey]; !ok {
		return "", fmt.Errorf("post-render ConfigMap %s: no key %s (keys: %v); the chart's kube-scheduler configuration moved",
			HAMiSchedulerObject, HAMiSchedulerConfigKey, keys(cm.Data))
	}
	cm.Data[HAMiSchedulerConfigKey] = string(schedulerConfig)
	out, err := yaml.Marshal(&cm)
	if err != nil {
		return "", err
	}
	return string(out), nil
}

// stampSchedulerConfigHash sets AnnoSchedulerConfig to hash on the pod
// template of the scheduler Deployment doc.
func stampSchedulerConfigHash(doc, hash string) (string, error) {
	var d appsv1.Deployment
	if err := yaml.Unmarshal([]byte(doc), &d); err != nil {
		return "", fmt.Errorf("post-render Deployment %s: %w", HAMiSchedulerObject, err)
	}
	if d.Spec.Template.Annotations == nil {
		d.Spec.Template.Annotations = map[string]string{}
	}
	d.Spec.Template.Annotations[AnnoSchedulerConfig] = hash
	out, err := yaml.Marshal(&d)
	if err != nil {
		return "", err
	}
	return string(out), nil
}

// joinYAMLDocs is the stream of docs, each opened by a "---" line and ended
// by a newline.
func joinYAMLDocs(docs []string) []byte {
	var b bytes.Buffer
	for _, d := range docs {
		b.WriteString("---\n")
		b.WriteString(strings.TrimLeft(d, "\n"))
		if !strings.HasSuffix(d, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// splitYAMLDocs splits a multi-document stream with apimachinery's
// YAMLReader (a "---" line, optionally followed by a comment, ends a
// document), dropping empty documents.
func splitYAMLDocs(b []byte) ([]string, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
	var docs []string
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("split YAML document %d: %w", len(docs)+1, err)
		}
		text := string(doc)
		if strings.HasPrefix(text, "---") {
			// The reader keeps the line of a separator that opens the
			// stream (or follows another) in the next document.
			_, text, _ = strings.Cut(text, "\n")
		}
		if strings.TrimSpace(text) != "" {
			docs = append(docs, text)
		}
	}
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
