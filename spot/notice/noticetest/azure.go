package noticetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/gpucost/gpucost/spot/notice"
)

// Azure is a fake Azure instance metadata service: Scheduled Events (GET the document, POST
// StartRequests to acknowledge) and the VM's compute/name.
type Azure struct {
	server
	URL    string // Scheduled Events URL with api-version, for notice.Azure.URL
	VMName string // the name compute/name answers

	incarnation int
	events      []notice.ScheduledEvent
	raw         string // a verbatim document replacing the events, when set
	acks        []string
	gets        int
	next        int
	compute     string // the compute section's JSON; 404 when empty
}

// Subscription and ResourceGroup are where SetCompute's VM lives.
const (
	Subscription  = "00000000-0000-4000-8000-000000000000"
	ResourceGroup = "Training"
)

// ResourceID is the ARM resource ID SetCompute gives the VM named vmName, in the mixed case the
// instance metadata service writes it.
func ResourceID(vmName string) string {
	return "/subscriptions/" + Subscription + "/resourceGroups/" + ResourceGroup + "/providers/Microsoft.Compute/virtualMachines/" + vmName
}

// NewAzure starts a fake service for the VM named vmName, with no events scheduled.
func NewAzure(tb testing.TB, vmName string) *Azure {
	s := &Azure{VMName: vmName, incarnation: 1}
	s.start(tb, s.serve)
	s.URL = s.srv.URL + "/metadata/scheduledevents?api-version=2020-07-01"
	return s
}

// ScheduleEvent adds ev to the document and bumps its DocumentIncarnation. An empty EventId
// gets a fresh one; the event's id is returned.
func (s *Azure) ScheduleEvent(ev notice.ScheduledEvent) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ev.EventId == "" {
		s.next++
		ev.EventId = fmt.Sprintf("00000000-0000-4000-8000-%012d", s.next)
	}
	s.events = append(s.events, ev)
	s.incarnation++
	return ev.EventId
}

// Preempt schedules a spot eviction of this VM with NotBefore 30 s from now, as Azure does, and
// returns its EventId.
func (s *Azure) Preempt() string {
	return s.ScheduleEvent(notice.ScheduledEvent{
		EventType: "Preempt", ResourceType: "VirtualMachine", Resources: []string{s.VMName},
		EventStatus: "Scheduled", NotBefore: time.Now().Add(30 * time.Second).UTC().Format(time.RFC1123),
		Description: "Virtual machine is being evicted.", EventSource: "Platform", DurationInSeconds: -1,
	})
}

// SetDocument serves body verbatim instead of the events (malformed documents for tests); an
// empty body goes back to the events.
func (s *Azure) SetDocument(body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.raw = body
}

// Acks returns the bodies of the acknowledgements POSTed so far, verbatim.
func (s *Azure) Acks() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.acks...)
}

// Gets returns how many times the document was read.
func (s *Azure) Gets() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gets
}

func (s *Azure) serve(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Metadata") != "true" {
		http.Error(w, `{"error":"Bad request. Required metadata header not specified"}`, http.StatusBadRequest)
		return
	}
	if r.URL.Query().Get("api-version") == "" {
		http.Error(w, `{"error":"Bad request. api-version was not specified in the request"}`, http.StatusBadRequest)
		return
	}
	switch {
	case r.URL.Path == "/metadata/instance/compute/name" && r.Method == http.MethodGet && r.URL.Query().Get("format") == "text":
		fmt.Fprint(w, s.VMName)
	case r.URL.Path == "/metadata/instance/compute" && r.Method == http.MethodGet:
		s.serveCompute(w, r)
	case r.URL.Path == "/metadata/scheduledevents" && r.Method == http.MethodGet:
		s.document(w)
	case r.URL.Path == "/metadata/scheduledevents" && r.Method == http.MethodPost:
		s.acknowledge(w, r)
	default:
		http.NotFound(w, r)
	}
}

// SetCompute serves the compute section of the instance metadata for this VM with the given
// size, location, zone and priority (Regular, Spot or Low), with the other fields Azure
// documents: its resourceId is ResourceID(VMName).
func (s *Azure) SetCompute(vmSize, location, zone, priority string) {
	doc := map[string]any{
		"azEnvironment": "AzurePublicCloud", "evictionPolicy": "", "location": location, "name": s.VMName,
		"offer": "ubuntu-hpc", "osType": "Linux", "platformFaultDomain": "0", "platformUpdateDomain": "0",
		"priority": priority, "provider": "Microsoft.Compute", "publisher": "microsoft-dsvm", "resourceId": ResourceID(s.VMName),
		"resourceGroupName": ResourceGroup, "sku": "2204", "subscriptionId": Subscription,
		"tags": "", "version": "22.04.2024", "vmId": "02aab8a4-74ef-476e-8182-f6d2ba4166a6",
		"vmScaleSetName": "", "vmSize": vmSize, "zone": zone,
	}
	if priority == "Spot" || priority == "Low" {
		doc["evictionPolicy"] = "Deallocate"
	}
	b, _ := json.Marshal(doc)
	s.SetComputeDocument(string(b))
}

// SetComputeDocument serves body verbatim as the compute section (malformed documents for
// tests); an empty body takes it down again (404).
func (s *Azure) SetComputeDocument(body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.compute = body
}

func (s *Azure) serveCompute(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	body := s.compute
	s.mu.Unlock()
	if body == "" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	fmt.Fprint(w, body)
}

func (s *Azure) document(w http.ResponseWriter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gets++
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if s.raw != "" {
		fmt.Fprint(w, s.raw)
		return
	}
	_ = json.NewEncoder(w).Encode(notice.ScheduledEvents{DocumentIncarnation: s.incarnation, Events: s.events})
}

// acknowledge records a POST and starts the events it names.
func (s *Azure) acknowledge(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct{ StartRequests []struct{ EventId string } }
	if err := json.Unmarshal(body, &req); err != nil || len(req.StartRequests) == 0 {
		http.Error(w, `{"error":"Bad request. StartRequests expected"}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.acks = append(s.acks, string(body))
	for _, sr := range req.StartRequests {
		for i := range s.events {
			if s.events[i].EventId == sr.EventId {
				s.events[i].EventStatus = "Started"
				s.incarnation++
			}
		}
	}
}
