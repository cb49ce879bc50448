"""What may be fetched, decided before a request leaves: robots.txt, internal addresses, a build folder
served offline; with what a failed fetch means and how long a header line may be."""
