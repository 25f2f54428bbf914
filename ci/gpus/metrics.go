package gpus

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// HAMi v2.10.0's scheduler reports one hami_gpu_memory_limit_bytes sample
// per card it has registered (cmd/scheduler/metrics.go at v2.10.0,
// nodevGPUMemoryLimitDesc: labels node, device_uuid, device_index,
// device_type, plus the registry-wide zone="vGPU"; value mibToBytes(Totalmem)).
// A card listed there is a card HAMi's Filter can place pods on, so it is the
// lab's readiness evidence. The older GPUDeviceMemoryLimit{nodeid,deviceuuid,…}
// family is emitted only with --legacy-metrics=true (cmd/scheduler/main.go
// at v2.10.0, flag default false; chart value legacyMetrics, default false),
// so it is deliberately not read here.
const (
	MetricMemoryLimit = "hami_gpu_memory_limit_bytes"
	metricLabelNode   = "node"
	metricLabelUUID   = "device_uuid"
	metricLabelIndex  = "device_index"
	metricLabelType   = "device_type"
)

// metricCard is one card as HAMi's scheduler reports it in its metrics.
type metricCard struct {
	UUID  string
	Node  string
	Index string
	// Type is HAMi's device type, e.g. "NVIDIA-L4" (vendor-model).
	Type             string
	MemoryLimitBytes int64
}

// memoryLimitMiB is the card's memory as registered (HAMi's devmem).
func (c metricCard) memoryLimitMiB() int64 { return c.MemoryLimitBytes / (1 << 20) }

// cardsInMetrics lists the cards in a scrape of HAMi's scheduler /metrics
// (Prometheus text format), by UUID. Lines it cannot read are skipped: a
// scrape is evidence, and a card missing from it is reported by MissingCards.
func cardsInMetrics(scrape []byte) map[string]metricCard {
	cards := map[string]metricCard{}
	sc := bufio.NewScanner(bytes.NewReader(scrape))
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		s, ok := parseSample(sc.Text())
		if !ok || s.name != MetricMemoryLimit || s.labels[metricLabelUUID] == "" {
			continue
		}
		cards[s.labels[metricLabelUUID]] = metricCard{
			UUID:             s.labels[metricLabelUUID],
			Node:             s.labels[metricLabelNode],
			Index:            s.labels[metricLabelIndex],
			Type:             s.labels[metricLabelType],
			MemoryLimitBytes: int64(math.Round(s.value)),
		}
	}
	return cards
}

// MissingCards returns the wanted UUIDs the scrape does not show, sorted.
func MissingCards(scrape []byte, want []string) []string {
	seen := cardsInMetrics(scrape)
	var miss []string
	for _, u := range want {
		if _, ok := seen[u]; !ok {
			miss = append(miss, u)
		}
	}
	sort.Strings(miss)
	return miss
}

// SeesAllCards is the readiness check shared by the gpus stage and the local
// test environment: whether the scrape lists every wanted card, and the
// condition line that says so ("HAMi sees 1/2 cards, missing GPU-…").
func SeesAllCards(scrape []byte, want []string) (bool, string) {
	miss := MissingCards(scrape, want)
	if len(miss) > 0 {
		return false, fmt.Sprintf("HAMi sees %d/%d cards, missing %s", len(want)-len(miss), len(want), strings.Join(miss, ", "))
	}
	return true, fmt.Sprintf("HAMi sees %d/%d cards", len(want), len(want))
}

// sample is one line of the Prometheus text format:
// name{label="value",...} value [timestamp].
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

// parseSample reads a sample line; comments, blank and malformed lines are
// not samples. Label values may hold the format's escapes (\\, \", \n).
func parseSample(line string) (sample, bool) {
	line = strings.TrimSpace(line)
	if line == "" || line[0] == '#' {
		return sample{}, false
	}
	end := strings.IndexAny(line, "{ \t")
	if end <= 0 {
		return sample{}, false
	}
	s := sample{name: line[:end], labels: map[string]string{}}
	rest := line[end:]
	if rest[0] == '{' {
		var ok bool
		if rest, ok = parseLabels(rest[1:], s.labels); !ok {
			return sample{}, false
		}
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return sample{}, false
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return sample{}, false
	}
	s.value = v
	return s, true
}

// parseLabels reads `name="value",...}` into into and returns what follows
// the closing brace.
func parseLabels(in string, into map[string]string) (string, bool) {
	i := 0
	for {
		for i < len(in) && (in[i] == ' ' || in[i] == ',') {
			i++
		}
		if i >= len(in) {
			return "", false
		}
		if in[i] == '}' {
			return in[i+1:], true
		}
		eq := strings.IndexByte(in[i:], '=')
		if eq <= 0 || i+eq+1 >= len(in) || in[i+eq+1] != '"' {
			return "", false
		}
		name := strings.TrimSpace(in[i : i+eq])
		i += eq + 2
		var val strings.Builder
		for ; i < len(in) && in[i] != '"'; i++ {
			if in[i] == '\\' && i+1 < len(in) {
				i++
				switch in[i] {
				case 'n':
					val.WriteByte('\n')
				default:
					val.WriteByte(in[i])
				}
				continue
			}
			val.WriteByte(in[i])
		}
		if i >= len(in) {
			return "", false
		}
		into[name] = val.String()
		i++ // closing quote
	}
}
