// Each saved tape debugger is its standalone page in an <iframe> (course/site/embed.py); the page
// posts its height, and this fits the frame to it. Only numbers are read from the message.
window.addEventListener("message", (event) => {
  const { meDebuggerFrame, height } = event.data || {};
  if (typeof meDebuggerFrame !== "string" || !Number.isFinite(height)) return;
  for (const frame of document.querySelectorAll("iframe.me-debugger-frame")) {
    if (frame.name === meDebuggerFrame && frame.contentWindow === event.source) {
      frame.style.height = `${Math.ceil(height) + 4}px`;
    }
  }
});
