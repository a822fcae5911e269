import { render } from 'preact';
import { App } from './app.js';
import 'uplot/dist/uPlot.min.css';
import './styles.css';

const root = document.getElementById('app');
if (root) render(<App />, root);
