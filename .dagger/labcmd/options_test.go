package labcmd

import (
	"slices"
	"strings"
	"testing"
)

func TestSuiteCheck(t *testing.T) {
	tests := []struct {
		name    string
		suite   Suite
		wantErr []string // substrings, all in one error
	}{
		{name: "defaults", suite: Suite{}},
		{name: "valid", suite: Suite{Run: "TC-0[1-8]", Parallel: 4}},
		{name: "bad regexp", suite: Suite{Run: "TC-0[1-"}, wantErr: []string{"--run", "TC-0[1-", "regular expression"}},
		{name: "negative parallel", suite: Suite{Parallel: -1}, wantErr: []string{"--parallel -1"}},
		{name: "both at once", suite: Suite{Run: "(", Parallel: -2}, wantErr: []string{"--run", "--parallel -2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.suite.Check()
			if len(tt.wantErr) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want one mentioning %q", tt.wantErr)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestGoProxyCheck(t *testing.T) {
	tests := []struct {
		name    string
		g       GoProxy
		wantErr []string // substrings, all in one error
	}{
		{name: "defaults", g: GoProxy{}},
		{name: "list with direct", g: GoProxy{Proxy: "https://goproxy.example.com,direct"}},
		{name: "pipe and http", g: GoProxy{Proxy: "http://10.0.0.1:5001|off"}},
		{name: "file tree", g: GoProxy{Proxy: "file:///srv/goproxy"}},
		{name: "sumdb off", g: GoProxy{SumDB: "off"}},
		{name: "sumdb through proxy", g: GoProxy{SumDB: "sum.golang.org https://goproxy.example.com/sumdb/sum.golang.org"}},
		{name: "no scheme", g: GoProxy{Proxy: "goproxy.example.com"}, wantErr: []string{`--goproxy "goproxy.example.com"`, "not a proxy URL"}},
		{name: "ftp", g: GoProxy{Proxy: "https://a.example,ftp://b.example"}, wantErr: []string{`"ftp://b.example" is not a proxy URL`}},
		{name: "sumdb three words", g: GoProxy{SumDB: "a b c"}, wantErr: []string{`--gosumdb "a b c"`, "want off"}},
		{name: "sumdb blank", g: GoProxy{SumDB: "  "}, wantErr: []string{"want off"}},
		{name: "sumdb bad url", g: GoProxy{SumDB: "sum.golang.org nohost"}, wantErr: []string{`"nohost" is not a URL`}},
		{name: "both bad at once", g: GoProxy{Proxy: "x", SumDB: "a b c"}, wantErr: []string{"--goproxy", "--gosumdb"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.g.Check()
			if len(tt.wantErr) == 0 {
				if err != nil {
					t.Fatalf("Check() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Check() = nil, want an error with %q", tt.wantErr)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Check() = %v, want it to contain %q", err, w)
				}
			}
		})
	}
}

func TestGoProxyEnvSetsOnlyWhatIsGiven(t *testing.T) {
	tests := []struct {
		g    GoProxy
		want [][2]string
	}{
		{GoProxy{}, nil},
		{GoProxy{Proxy: "http://p:5001"}, [][2]string{{"GOPROXY", "http://p:5001"}}},
		{GoProxy{SumDB: "off"}, [][2]string{{"GOSUMDB", "off"}}},
		{GoProxy{Proxy: "http://p:5001", SumDB: "off"}, [][2]string{{"GOPROXY", "http://p:5001"}, {"GOSUMDB", "off"}}},
	}
	for _, tt := range tests {
		if got := tt.g.Env(); !slices.Equal(got, tt.want) {
			t.Errorf("%+v.Env() = %q, want %q", tt.g, got, tt.want)
		}
	}
}
