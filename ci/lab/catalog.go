package lab

import "sort"

// Model is a GPU model the lab can simulate.
type Model struct {
	// Name is the catalog key used in lab files.
	Name string
	// MemoryMB is the card memory HAMi registers (devmem), in MiB.
	MemoryMB int
	// Type is HAMi's device type string; it contains "NVIDIA" so HAMi's
	// NVIDIA backend counts the card.
	Type string
}

// customModel is the Model name that takes memory and type from the lab file.
const customModel = "custom"

// Catalog lists the models known by name. Memory is the nominal size in MiB
// (80 GB = 81920), as the seed lab registers it.
var Catalog = map[string]Model{
	"A100-40GB": {Name: "A100-40GB", MemoryMB: 40960, Type: "NVIDIA-A100-SXM4-40GB"},
	"A100-80GB": {Name: "A100-80GB", MemoryMB: 81920, Type: "NVIDIA-A100-SXM4-80GB"},
	"H100-80GB": {Name: "H100-80GB", MemoryMB: 81920, Type: "NVIDIA-H100-80GB-HBM3"},
	"H200":      {Name: "H200", MemoryMB: 144384, Type: "NVIDIA-H200"},
	"L4":        {Name: "L4", MemoryMB: 24576, Type: "NVIDIA-L4"},
	"L40S":      {Name: "L40S", MemoryMB: 49152, Type: "NVIDIA-L40S"},
	"T4":        {Name: "T4", MemoryMB: 16384, Type: "NVIDIA-Tesla-T4"},
}

// CatalogNames lists the catalog keys, sorted, for error messages and docs.
func CatalogNames() []string {
	out := make([]string, 0, len(Catalog))
	for n := range Catalog {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Card is one resolved simulated GPU.
type Card struct {
	Model    string
	MemoryMB int
	Type     string
	// Index is the card's position on its worker (0-based, across groups).
	Index int
}

// Cards expands the worker's groups into cards, in order. It assumes a
// validated lab (known models, counts defaulted).
func (w Worker) Cards() []Card {
	var out []Card
	for _, g := range w.GPUs {
		m := Catalog[g.Model]
		if g.Model == customModel {
			m = Model{Name: customModel}
		}
		if g.MemoryMB > 0 {
			m.MemoryMB = g.MemoryMB
		}
		if g.Type != "" {
			m.Type = g.Type
		}
		for i := 0; i < g.Count; i++ {
			out = append(out, Card{Model: g.Model, MemoryMB: m.MemoryMB, Type: m.Type, Index: len(out)})
		}
	}
	return out
}
