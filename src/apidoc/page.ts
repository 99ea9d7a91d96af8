/**
 * The API reference page: one self-contained HTML document (inline CSS and script, system fonts, no
 * CDN: many installations have no internet). The server writes the operations grouped by tag; the
 * script renders an operation's parameters, request body and replies from the embedded OpenAPI
 * document when it is opened, with the worked example of each (a real request and its reply), and
 * filters the list as one types.
 */
import type { OpenApiDocument } from './document.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

interface Listed {
  readonly method: string;
  readonly path: string;
  readonly id: string;
  readonly summary: string;
  readonly tag: string;
}

function operations(doc: OpenApiDocument): Listed[] {
  const out: Listed[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (op === undefined) continue;
      const tags = op['tags'] as string[] | undefined;
      const summary = typeof op['summary'] === 'string' ? op['summary'] : '';
      out.push({ method, path, id: String(op['operationId']), summary, tag: tags?.[0] ?? 'Other' });
    }
  }
  return out;
}

/** The page for this document. */
export function referencePage(doc: OpenApiDocument): string {
  const info = doc['info'] as { title: string; version: string; description: string };
  const byTag = new Map<string, Listed[]>();
  for (const op of operations(doc)) (byTag.get(op.tag) ?? byTag.set(op.tag, []).get(op.tag) ?? []).push(op);
  const tags = [...byTag.keys()].sort();
  const nav = tags.map((t) => `<a href="#tag-${esc(t.replace(/\s+/g, '-'))}">${esc(t)} <small>${byTag.get(t)?.length ?? 0}</small></a>`).join('');
  const sections = tags.map((t) => {
    const ops = (byTag.get(t) ?? []).map((o) =>
      `<details class="op" data-id="${esc(o.id)}" data-text="${esc(`${o.method} ${o.path} ${o.summary} ${o.id}`.toLowerCase())}">` +
      `<summary><span class="m m-${o.method}">${o.method.toUpperCase()}</span><code>${esc(o.path)}</code><span class="s">${esc(o.summary)}</span></summary>` +
      '<div class="body"></div></details>').join('');
    return `<section id="tag-${esc(t.replace(/\s+/g, '-'))}"><h2>${esc(t)}</h2>${ops}</section>`;
  }).join('');
  const embedded = JSON.stringify(doc).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(info.title)} ${esc(info.version)} - API reference</title>
<style>${CSS}</style></head>
<body><header><h1>${esc(info.title)} <small>${esc(info.version)}</small></h1>
<p>${esc(info.description).replace(/`([^`]+)`/g, '<code>$1</code>')}</p>
<p>The document: <a href="openapi.json">/rest/v1/openapi.json</a> (also at <a href="/v3/api-docs">/v3/api-docs</a>).</p>
<input id="filter" type="search" placeholder="Filter operations (method, path, words)" autocomplete="off"></header>
<div class="wrap"><nav>${nav}</nav><main>${sections}</main></div>
<script type="application/json" id="openapi">${embedded}</script>
<script>${SCRIPT}</script></body></html>`;
}

const CSS = `
:root{--fg:#1d2330;--mut:#5d6675;--bg:#fff;--line:#dde1e8;--code:#f4f6f9}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
header{padding:16px 24px;border-bottom:1px solid var(--line)}h1{margin:0 0 6px;font-size:22px}h1 small{color:var(--mut);font-weight:400}
header p{margin:4px 0;color:var(--mut);max-width:110ch}#filter{margin-top:8px;width:100%;max-width:520px;padding:6px 10px;border:1px solid var(--line);border-radius:4px;font:inherit}
.wrap{display:flex}nav{position:sticky;top:0;align-self:flex-start;max-height:100vh;overflow:auto;min-width:230px;padding:12px;border-right:1px solid var(--line)}
nav a{display:block;padding:3px 6px;color:var(--fg);text-decoration:none;border-radius:3px}nav a:hover{background:var(--code)}nav small{color:var(--mut)}
main{flex:1;padding:8px 24px 48px;min-width:0}h2{font-size:17px;margin:22px 0 8px}
.op{border:1px solid var(--line);border-radius:4px;margin:4px 0}.op>summary{cursor:pointer;padding:6px 8px;display:flex;gap:10px;align-items:baseline;list-style:none}
.op>summary code{font-weight:600;word-break:break-all}.s{color:var(--mut)}.body{padding:4px 14px 12px;border-top:1px solid var(--line)}
.m{display:inline-block;min-width:62px;text-align:center;font:600 12px/20px ui-monospace,monospace;color:#fff;border-radius:3px}
.m-get{background:#2f6fb5}.m-post{background:#2e8b57}.m-put{background:#b5822f}.m-patch{background:#7d5bb5}.m-delete{background:#b53f3f}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}pre{background:var(--code);padding:8px;overflow:auto}pre.ex{max-height:360px}
table{border-collapse:collapse;margin:4px 0 10px}td,th{border:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
h4{margin:12px 0 4px}.t{color:#8a4b00}.req{color:#b53f3f}.d{color:var(--mut)}ul.sch{margin:2px 0;padding-left:18px}ul.sch li{margin:1px 0}
.hidden{display:none}`;

const SCRIPT = `
(function(){
var doc=JSON.parse(document.getElementById('openapi').textContent);
var ops={};Object.keys(doc.paths).forEach(function(p){var it=doc.paths[p];Object.keys(it).forEach(function(m){ops[it[m].operationId]={path:p,method:m,op:it[m]};});});
function esc(s){return String(s).replace(/[&<>"]/g,function(c){return{'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c];});}
function deref(s){var seen=0;while(s&&s.$ref&&seen++<20){var n=s.$ref.split('/').pop();s=doc.components.schemas[n]||{};}return s||{};}
function typeOf(s){s=deref(s);if(s.enum)return 'enum: '+s.enum.map(function(v){return JSON.stringify(v);}).join(' | ');
if(s.anyOf||s.oneOf){return (s.anyOf||s.oneOf).map(typeOf).join(' | ');}
if(s.type==='array')return 'array of '+typeOf(s.items||{});var t=Array.isArray(s.type)?s.type.join(' | '):(s.type||'any');
if(s.format)t+=' ('+s.format+')';var big=9007199254740991,lo=s.minimum!==undefined&&s.minimum>-big?s.minimum:'',hi=s.maximum!==undefined&&s.maximum<big?s.maximum:'';
if(lo!==''||hi!=='')t+=' ['+lo+'..'+hi+']';
if(s.maxLength!==undefined)t+=' max '+s.maxLength;return t;}
function objectOf(s){s=deref(s);if(s.type==='array')return objectOf(s.items||{});if(s.anyOf||s.oneOf){var l=s.anyOf||s.oneOf;for(var i=0;i<l.length;i++){var o=objectOf(l[i]);if(o)return o;}}return s.properties?s:null;}
function refName(s){if(s&&s.$ref)return s.$ref.split('/').pop();if(s&&s.type==='array'&&s.items&&s.items.$ref)return s.items.$ref.split('/').pop();return '';}
function schema(s,depth){var name=refName(s);s=deref(s);var o=objectOf(s);if(!name&&s.properties&&s.properties.content)name=refName(s.properties.content);
var head='<span class="t">'+esc(typeOf(s))+'</span>'+(name?' <b>'+esc(name)+'</b>':'')+(s.title?' <b>'+esc(s.title)+'</b>':'')+(s.description?' <span class="d">'+esc(s.description)+'</span>':'');
if(!o||depth>6)return head;var req=o.required||[];
return head+'<ul class="sch">'+Object.keys(o.properties).map(function(k){var p=o.properties[k];return '<li><code>'+esc(k)+'</code>'+(req.indexOf(k)>=0?' <span class="req">required</span>':'')+' '+schema(p,depth+1)+'</li>';}).join('')+'</ul>';}
function example(m){if(!m||!m.examples)return '';var k=Object.keys(m.examples)[0],e=m.examples[k];
return '<p class="d">Example: <code>'+esc(e.summary||k)+'</code></p><pre class="ex">'+esc(JSON.stringify(e.value,null,2))+'</pre>';}
function render(el){var e=ops[el.getAttribute('data-id')];if(!e)return;var op=e.op,h='';
h+='<p class="d">operationId <code>'+esc(op.operationId)+'</code>'+(op.security&&op.security.length?' - auth: '+op.security.map(function(x){return Object.keys(x)[0];}).join(' or '):' - no authentication')+'</p>';
if(op.description)h+='<p>'+esc(op.description)+'</p>';
if(op.parameters&&op.parameters.length){h+='<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th>type</th><th></th></tr>'+op.parameters.map(function(p){return '<tr><td><code>'+esc(p.name)+'</code>'+(p.required?' <span class="req">required</span>':'')+'</td><td>'+esc(p.in)+'</td><td>'+esc(typeOf(p.schema||{}))+'</td><td class="d">'+esc(p.description||'')+'</td></tr>';}).join('')+'</table>';}
if(op.requestBody){var c=op.requestBody.content;h+='<h4>Request body'+(op.requestBody.required?'':' (optional)')+'</h4><p class="d">'+esc(Object.keys(c).join(', '))+'</p>'+schema(c[Object.keys(c)[0]].schema||{},0)+example(c[Object.keys(c)[0]]);}
h+='<h4>Responses</h4>';Object.keys(op.responses).forEach(function(code){var r=op.responses[code];h+='<p><b>'+esc(code)+'</b> '+esc(r.description||'');
if(r.content){var k=Object.keys(r.content);h+=' <span class="d">'+esc(k.join(', '))+'</span>';var s=r.content[k[0]].schema;if(s&&code.charAt(0)==='2')h+='</p>'+schema(s,0)+example(r.content[k[0]]);else if(s)h+=' - '+esc(typeOf(s))+(s.$ref?' ('+esc(s.$ref.split('/').pop())+')':'')+'</p>';else h+='</p>';}else h+='</p>';});
el.querySelector('.body').innerHTML=h;}
document.querySelectorAll('details.op').forEach(function(d){d.addEventListener('toggle',function(){if(d.open&&!d.getAttribute('data-done')){render(d);d.setAttribute('data-done','1');}});});
var f=document.getElementById('filter');f.addEventListener('input',function(){var words=f.value.toLowerCase().split(/\\s+/).filter(Boolean);
document.querySelectorAll('details.op').forEach(function(d){var t=d.getAttribute('data-text');d.classList.toggle('hidden',!words.every(function(w){return t.indexOf(w)>=0;}));});
document.querySelectorAll('main section').forEach(function(s){s.classList.toggle('hidden',!s.querySelector('details.op:not(.hidden)'));});});
if(location.hash){var id=decodeURIComponent(location.hash.slice(1));var d=document.querySelector('details.op[data-id="'+id.replace(/"/g,'')+'"]');if(d){d.open=true;d.scrollIntoView();}}
})();`;
