/** The console's entry: render the shell, then ask the server who is signed in. */
import { render } from 'preact';
import { App } from './app.js';
import { loadSession } from './session.js';

const root = document.getElementById('app');
if (root !== null) {
  render(<App />, root);
  void loadSession();
}
