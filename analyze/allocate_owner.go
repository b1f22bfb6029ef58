package analyze

import (
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
)

// Owner dimensions that tag keys name.
const (
	TagTeam    = "team"
	TagProject = "project"
)

// DefaultTagKeys returns the tag and label keys tried, in order, for an owner's team and project:
// the plain key as AWS, GCP and Azure users write it and in other cases, AWS's user-defined cost
// allocation tags as the legacy CUR ("user:team") and CUR 2.0 ("user_team") name them,
// Kubecost-style label_ keys from Kubernetes labels, and for the team an owner tag.
func DefaultTagKeys() map[string][]string {
	return map[string][]string{
		TagTeam: {"team", "Team", "TEAM", "user:team", "user:Team", "user_team", "user_Team", "label_team",
			"owner", "Owner", "user:owner", "user_owner", "label_owner"},
		TagProject: {"project", "Project", "PROJECT", "user:project", "user:Project", "user_project",
			"user_Project", "label_project"},
	}
}

// ParseTagKeys parses a --tag-keys value, "team=team,Team,user:team;project=project,Project": for
// each named dimension (team or project) the keys to try, in order. A dimension the value does not
// name keeps DefaultTagKeys' keys; one named with no keys ("project=") is never filled from tags.
// The empty string gives DefaultTagKeys.
func ParseTagKeys(spec string) (map[string][]string, error) {
	keys := DefaultTagKeys()
	seen := map[string]bool{}
	for part := range strings.SplitSeq(spec, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		dim, list, ok := strings.Cut(part, "=")
		dim = strings.ToLower(strings.TrimSpace(dim))
		if !ok || (dim != TagTeam && dim != TagProject) {
			return nil, gpucost.Errorf(gpucost.EInvalid,
				"tag keys %q: %q is not team=KEY,KEY… or project=KEY,KEY…; separate the two with ';'", spec, part)
		}
		if seen[dim] {
			return nil, gpucost.Errorf(gpucost.EInvalid, "tag keys %q: %s is given twice", spec, dim)
		}
		seen[dim] = true
		keys[dim] = []string{}
		for k := range strings.SplitSeq(list, ",") {
			k = strings.TrimSpace(k)
			if strings.Contains(k, "=") {
				return nil, gpucost.Errorf(gpucost.EInvalid,
					"tag keys %q: key %q holds '='; separate team=… and project=… with ';'", spec, k)
			}
			if k != "" && !slices.Contains(keys[dim], k) {
				keys[dim] = append(keys[dim], k)
			}
		}
	}
	return keys, nil
}

// checkTagKeys returns an error for a dimension other than team and project or an empty key.
func checkTagKeys(keys map[string][]string) error {
	for _, dim := range slices.Sorted(maps.Keys(keys)) {
		if dim != TagTeam && dim != TagProject {
			return gpucost.Errorf(gpucost.EInvalid, "tag keys: %q is not an owner dimension; want %s or %s", dim, TagTeam, TagProject)
		}
		if slices.Contains(keys[dim], "") {
			return gpucost.Errorf(gpucost.EInvalid, "tag keys: %s has an empty key", dim)
		}
	}
	return nil
}

// TagOwners answers TagOwner for one set of keys, remembering the answer for the last few tag
// maps: readers and stores share one map among the lines with the same tags, so a bill's lines
// mostly ask about a map they asked about before. The maps must not change once asked about.
type TagOwners struct {
	Keys map[string][]string

	seen [8]seenTags
	next int
}

type seenTags struct {
	tags  gpucost.Labels // held so its address is not reused while remembered
	ptr   uintptr
	owner gpucost.Owner
}

// Of returns TagOwner(tags, c.Keys).
func (c *TagOwners) Of(tags gpucost.Labels) gpucost.Owner {
	if len(tags) == 0 {
		return gpucost.Owner{}
	}
	p := reflect.ValueOf(tags).Pointer()
	for i := range c.seen {
		if c.seen[i].ptr == p {
			return c.seen[i].owner
		}
	}
	o := TagOwner(tags, c.Keys)
	c.seen[c.next] = seenTags{tags, p, o}
	c.next = (c.next + 1) % len(c.seen)
	return o
}

// TagOwner returns the team and project that tags name: for each, the value of the first key in
// keys[TagTeam] or keys[TagProject] that tags hold with a non-empty value.
func TagOwner(tags gpucost.Labels, keys map[string][]string) gpucost.Owner {
	return gpucost.Owner{Team: firstTag(tags, keys[TagTeam]), Project: firstTag(tags, keys[TagProject])}
}

func firstTag(tags gpucost.Labels, keys []string) string {
	if len(tags) == 0 {
		return ""
	}
	for _, k := range keys {
		if v := tags[k]; v != "" {
			return v
		}
	}
	return ""
}

// Telemetry label keys that name an owner besides the well-known ones. The nvidia-smi and NVML
// collectors know a pod only by its UID (telemetry/workload); dcgm-exporter's hpc_job and Slurm's
// job ID reach the store as the job label, and the others are read in case a source keeps them.
var (
	podKeys = []string{gpucost.LabelPod, "pod_uid", "pod_name"}
	jobKeys = []string{gpucost.LabelJob, "hpc_job", "slurm_job_id", "slurm_job", "exported_job"}
)

// ownerLabels reads owners from a series' labels and a cost line's tags.
type ownerLabels struct {
	keys map[string][]ownerKey // every key that names an owner field, with the field and the key's rank
}

// ownerKey is a label key that names one owner field; of two keys, the lower rank wins.
type ownerKey struct{ field, rank int }

// Owner fields, in gpucost.Owner's order.
const (
	fieldTeam = iota
	fieldProject
	fieldNamespace
	fieldPod
	fieldJob
	ownerFields
)

func newOwnerLabels(keys map[string][]string) ownerLabels {
	o := ownerLabels{keys: map[string][]ownerKey{}}
	for field, list := range [ownerFields][]string{keys[TagTeam], keys[TagProject], {gpucost.LabelNamespace}, podKeys, jobKeys} {
		for rank, k := range list {
			o.keys[k] = append(o.keys[k], ownerKey{field: field, rank: rank})
		}
	}
	return o
}

// read returns the owner fields that labels name, each from its lowest-ranked key with a value,
// up to field last. It reads each label once, so its cost follows the labels, not the keys tried.
func (o ownerLabels) read(labels gpucost.Labels, last int) gpucost.Owner {
	var vals [ownerFields]string
	var ranks [ownerFields]int
	for k, v := range labels {
		if v == "" {
			continue
		}
		for _, key := range o.keys[k] {
			if key.field <= last && (vals[key.field] == "" || key.rank < ranks[key.field]) {
				vals[key.field], ranks[key.field] = v, key.rank
			}
		}
	}
	return gpucost.Owner{Team: vals[fieldTeam], Project: vals[fieldProject], Namespace: vals[fieldNamespace],
		Pod: vals[fieldPod], Job: vals[fieldJob]}
}

// of returns the owner a series' labels name; Team or Project is empty where no tag key names it.
func (o ownerLabels) of(labels gpucost.Labels) gpucost.Owner { return o.read(labels, fieldJob) }

// fill completes a series' owner with the team and project of its resource's tags.
func fill(own, tags gpucost.Owner) gpucost.Owner {
	if own.Team == "" {
		own.Team = tags.Team
	}
	if own.Project == "" {
		own.Project = tags.Project
	}
	return own
}

// compareOwners orders owners by team, project, namespace, pod and job.
func compareOwners(a, b gpucost.Owner) int {
	for _, c := range [...][2]string{{a.Team, b.Team}, {a.Project, b.Project}, {a.Namespace, b.Namespace},
		{a.Pod, b.Pod}, {a.Job, b.Job}} {
		if n := strings.Compare(c[0], c[1]); n != 0 {
			return n
		}
	}
	return 0
}

// OwnerReader reads the owner a telemetry series' labels name, as Allocate does: team and
// project by the tag keys, namespace, pod and job by their well-known labels.
type OwnerReader struct{ labels ownerLabels }

// NewOwnerReader returns an OwnerReader for tag keys (nil: DefaultTagKeys).
func NewOwnerReader(keys map[string][]string) OwnerReader {
	if keys == nil {
		keys = DefaultTagKeys()
	}
	return OwnerReader{labels: newOwnerLabels(keys)}
}

// Of returns the owner labels name, its team and project completed from tags where the labels
// name none.
func (r OwnerReader) Of(labels gpucost.Labels, tags gpucost.Owner) gpucost.Owner {
	return fill(r.labels.of(labels), tags)
}
