export default function Loading() {
  return (
    <p className="loading" role="status" aria-live="polite">
      Loading sessions…
    </p>
  )
}
