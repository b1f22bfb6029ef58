package cloudsource

// SplitURLs separates the bucket prefixes among args (IsURL), which a Puller reads, from the
// local paths, each in the order given.
func SplitURLs(args []string) (urls, paths []string) {
	for _, a := range args {
		if IsURL(a) {
			urls = append(urls, a)
		} else {
			paths = append(paths, a)
		}
	}
	return urls, paths
}
